#!/usr/bin/env node
// The `numakit` executable: runs main() and maps its outcome to an exit code.
import { describeError, main } from './main.js';

// EPIPE on stdout (numakit topo | head) is a normal end, not an error.
process.stdout.on('error', (e: NodeJS.ErrnoException) => process.exit(e.code === 'EPIPE' ? 0 : 1));

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (e: unknown) => {
    if (process.env.NUMAKIT_DEBUG) console.error(e);
    const { message, code } = describeError(e);
    process.stderr.write(`numakit: ${message}\n`);
    process.exitCode = code;
  },
);
