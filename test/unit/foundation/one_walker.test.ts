// One process walker: discover/process_sampler.ts lists /proc and reads every process's stat
// (stat, top, doctor, snapshot, serve and the agent read processes through it). A second walker
// beside it drifts from it (its own size bar, page size, hidepid counts), as doctor's did. So only
// sysfs/proc_list.ts lists /proc itself, only the modules named below take its pid list, each for
// a reason that is not a walk of every process's stat, and only the sampler (and the agent's
// watch of new pids, which follows the few it finds) opens a ProcStatFiles.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';

const SRC = fileURLToPath(new URL('../../../src/', import.meta.url));

/** Modules that may take /proc's pid list (listPids), and why each is not a second walker. */
const LIST_PIDS: Readonly<Record<string, string>> = {
  'discover/process_sampler.ts': 'the walker',
  'discover/processes.ts': "numastat's -p PATTERN: comm and cmdline of every process, no stat",
  'discover/page_size.ts': 'the page size from the first few processes, when the root does not state it',
  'agent/watch.ts': 'pids new since its last look (a changed last_pid), between sampler passes',
};

/** Modules that may open a ProcStatFiles (stat files kept open, read each pass), and why. */
const STAT_FILES: Readonly<Record<string, string>> = {
  'discover/process_sampler.ts': 'the walker',
  'discover/sampler_threads.ts': "the walker's stage 3: one process's threads",
  'agent/watch.ts': 'the few new pids it follows between sampler passes',
};

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const path = join(dir, e.name);
    if (e.isDirectory()) return sources(path);
    return /\.(ts|mts|mjs)$/.test(e.name) && !e.name.endsWith('.d.ts') ? [path] : [];
  });
}

const withoutComments = (text: string): string => text.replace(/\/\*[\s\S]*?\*\//g, '').replace(/^\s*\/\/.*$/gm, '');

/** What a source does of the walker's kinds: lists /proc itself, takes its pid list, opens stat files. */
export function walkerUses(text: string): { listsProc: boolean; listPids: boolean; statFiles: boolean } {
  const code = withoutComments(text);
  return {
    listsProc: /\b(?:listDir|readdirSync|readdir|opendirSync|opendir)\s*\([^)]*?['"`]\/?proc\/?['"`]\s*[,)]/.test(code),
    listPids: /(?<!function\s+)\blistPids\s*\(/.test(code),
    statFiles: /\bnew\s+ProcStatFiles\s*\(/.test(code),
  };
}

const files = sources(SRC).map((f) => ({
  rel: relative(SRC, f).split(sep).join('/'),
  uses: walkerUses(readFileSync(f, 'utf8')),
}));

describe('one process walker', () => {
  it('tells a walker from code that only reads one process', () => {
    // The shape of the walker doctor had beside the sampler.
    const second =
      'const pids = listPids(root);\nconst files = new ProcStatFiles(root);\nfor (const pid of pids) files.read(pid, st);';
    assert.deepEqual(walkerUses(second), { listsProc: false, listPids: true, statFiles: true });
    assert.equal(walkerUses("for (const n of listDir(root, 'proc') ?? [])").listsProc, true);
    assert.equal(walkerUses("readdirSync('/proc')").listsProc, true);
    assert.deepEqual(walkerUses("readdirSync('/proc/self/fd');\nreadProcStat(root, pid);\n// listPids(root)"), {
      listsProc: false,
      listPids: false,
      statFiles: false,
    });
  });

  it('only sysfs/proc_list.ts lists /proc', () => {
    assert.deepEqual(
      files.filter((f) => f.uses.listsProc && f.rel !== 'sysfs/proc_list.ts').map((f) => f.rel),
      [],
    );
  });

  it("only the sampler and the named few take /proc's pid list", () => {
    const found = files.filter((f) => f.uses.listPids).map((f) => f.rel);
    assert.deepEqual(
      found.filter((f) => LIST_PIDS[f] === undefined),
      [],
      'read processes through discover/process_sampler.ts (createSampler; its `names` and `listed`)',
    );
    // A module named here that no longer lists pids leaves the list.
    assert.deepEqual(Object.keys(LIST_PIDS).sort(), found.sort());
  });

  it('only the sampler (and the agent watching new pids) opens ProcStatFiles', () => {
    assert.deepEqual(
      files
        .filter((f) => f.uses.statFiles)
        .map((f) => f.rel)
        .sort(),
      Object.keys(STAT_FILES).sort(),
    );
  });
});
