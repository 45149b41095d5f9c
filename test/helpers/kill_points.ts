// Kill at every step: in a child process, counts the points after which a SIGKILL must leave
// something a restore can undo (a journal write made durable, a knob written, a persistent file
// replaced or removed, an affinity set) and kills the process with SIGKILL right after point
// number KILL_AT. With KILL_AT 0 it never kills and reports how many points there were. The
// counting goes through the same file-call table as the shipped code (interceptFileOps).
// fsync(2) is counted but not made: a SIGKILL loses nothing of the page cache (fsync is for
// power loss; journal_faults.test.ts checks that it is called), and a loaded disk would make
// dozens of processes slow for nothing.
import { fstatSync } from 'node:fs';
import { interceptFileOps } from '../../src/actuate/file_ops.js';

export interface KillPoints {
  /** Counts a point; SIGKILLs this process when it is the chosen one. */
  point(what: string): void;
  /** Points so far. */
  readonly count: number;
  readonly names: string[];
}

/**
 * Counts, through the file-call table: a write(2) on a file under one of `knobRoots`, and the
 * fsync(2) of a directory in `durableDirs` (the last step of an atomic write or remove there).
 */
export function killPoints(
  killAt: number,
  opts: { knobRoots: readonly string[]; durableDirs: (dir: string) => boolean },
): KillPoints {
  const names: string[] = [];
  const kp: KillPoints = {
    point(what) {
      names.push(what);
      if (names.length === killAt) process.kill(process.pid, 'SIGKILL');
    },
    get count() {
      return names.length;
    },
    names,
  };
  interceptFileOps((real) => {
    const paths = new Map<number, string>();
    return {
      ...real,
      openSync(path, flags, mode) {
        const fd = real.openSync(path, flags, mode);
        paths.set(fd, path);
        return fd;
      },
      closeSync(fd) {
        paths.delete(fd);
        real.closeSync(fd);
      },
      writeSync(fd, data, offset, length) {
        const n = real.writeSync(fd, data, offset, length);
        const path = paths.get(fd) ?? '';
        if (opts.knobRoots.some((r) => path.startsWith(`${r}/`))) kp.point(`write ${path}`);
        return n;
      },
      fsyncSync(fd) {
        const path = paths.get(fd) ?? '';
        if (fstatSync(fd).isDirectory() && opts.durableDirs(path)) kp.point(`durable ${path}`);
      },
    };
  });
  return kp;
}
