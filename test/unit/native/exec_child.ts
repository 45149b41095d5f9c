// Child for exec.test.ts: execs its arguments; on failure prints the error and exits 127.
import { execvp } from '../../../src/native/exec.ts';

const argv = process.argv.slice(2);
try {
  execvp(argv[0]!, argv);
} catch (err) {
  process.stderr.write(`${(err as Error).message}\n`);
  process.exitCode = 127;
}
