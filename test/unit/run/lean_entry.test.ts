// `numakit run` starts from its own small bundle (dist/cli/numakit-run.bundle.cjs, src/cli/run_main.ts)
// and must do exactly what the whole program does: the package's executable against
// dist/cli/bin.js (the same program unbundled, through main()) on the same arguments, the policy
// and binding read back from the kernel, exit statuses and one-line errors; what run's launch
// path does not cover (--help, --hardware, --file/--shm, ip:HOST) is handed to the whole program.
// Needs the build (npm test builds first); skipped, saying so, without it.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { REPO_DIR } from '../../helpers/cli.js';

const CLI = join(REPO_DIR, 'dist', 'cli');
const BIN = join(CLI, 'numakit.cjs');
const built = existsSync(join(CLI, 'numakit-run.bundle.cjs')) ? false : 'dist/ not built (npm run build)';
const dir = mkdtempSync(join(tmpdir(), 'numakit-lean-'));
after(() => rmSync(dir, { recursive: true, force: true }));

/** Runs `node [-r HOOK] BIN ARGS`; `read`: the bundles the process read (the hook records them). */
function launch(bin: string, args: string[]) {
  const log = join(dir, 'read.log');
  const hook = join(dir, 'hook.cjs');
  writeFileSync(
    hook,
    `const fs = require('node:fs'); const real = fs.readFileSync; const seen = [];
fs.readFileSync = function (p, ...rest) { if (typeof p === 'string' && /\\.bundle\\.cjs$/.test(p)) seen.push(require('node:path').basename(p)); return real.call(this, p, ...rest); };
process.on('exit', () => fs.writeFileSync(${JSON.stringify(log)}, seen.join('\\n')));`,
  );
  rmSync(log, { force: true });
  const r = spawnSync(process.execPath, ['-r', hook, bin, ...args], {
    encoding: 'utf8',
    env: { PATH: process.env.PATH, NO_COLOR: '1' },
  });
  // exec replaces the process: no exit hook runs, so no log is the lean bundle having exec'd
  const read = existsSync(log) ? readFileSync(log, 'utf8').split('\n').filter(Boolean) : ['(exec)'];
  // --hardware's free memory moves between two runs
  const stdout = r.stdout.replace(/ free: \d+ MB/g, ' free: N MB');
  return { out: { status: r.status, stdout, stderr: r.stderr }, read };
}

describe('numakit run from its lean bundle', { skip: built }, () => {
  const shmFile = join('/dev/shm', `numakit-lean-${process.pid}`);
  after(() => rmSync(shmFile, { force: true }));
  const cases: { args: string[]; full?: true }[] = [
    { args: ['run', '--show'] },
    { args: ['run', '-l', '-C', '0', '--show'] },
    { args: ['run', '--interleave', 'all', '--show'] },
    {
      args: [
        'run',
        '--membind',
        '0',
        '--physcpubind',
        '0',
        '--',
        'sh',
        '-c',
        'grep -E "^(Cpus|Mems)_allowed_list" /proc/self/status',
      ],
    },
    { args: ['run', '-N', 'netdev:lo', '--', 'true'] },
    { args: ['run', '--', 'sh', '-c', 'exit 3'] },
    { args: ['run', '--membind', '7', '--', 'true'] },
    { args: ['run', '--', '/nonexistent/command'] },
    { args: ['run'] },
    { args: ['run', '--bogus'] },
    { args: ['run', '--help'], full: true },
    { args: ['run', '--hardware'], full: true },
    { args: ['run', '-N', 'ip:127.0.0.1', '--', 'true'], full: true },
    { args: ['run', '-L', '8192', '--file', shmFile, '--membind', '0', '--dump'], full: true },
  ];
  for (const { args, full } of cases) {
    it(`numakit ${args.join(' ')}: as the whole program${full ? ', which it hands the command to' : ''}`, () => {
      const lean = launch(BIN, args);
      rmSync(shmFile, { force: true });
      const plain = launch(join(CLI, 'bin.js'), args);
      rmSync(shmFile, { force: true });
      assert.deepEqual(lean.out, plain.out);
      if (full) assert.deepEqual(lean.read, ['numakit-run.bundle.cjs', 'numakit.bundle.cjs']);
      else assert.ok(!lean.read.includes('numakit.bundle.cjs'), `read ${lean.read.join(', ')}`);
    });
  }
});
