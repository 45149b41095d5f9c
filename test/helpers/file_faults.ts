// Fault injection for the file calls of src/actuate (the journal, --persist files, knob writes):
// a rule sees every call (which file, which step) and lets it through, fails it with an errno,
// or, for a write, takes fewer bytes. Goes through interceptFileOps, the same table the
// shipped code uses, so the code under test is the real one.
import { constants } from 'node:fs';
import { interceptFileOps, type FileOps } from '../../src/actuate/file_ops.js';

export type Op = 'open' | 'write' | 'fsync' | 'close' | 'rename' | 'unlink' | 'mkdir';

export interface Call {
  readonly op: Op;
  /** The file (for write/fsync/close: the one the descriptor was opened on; for rename: the target). */
  readonly path: string;
  /** open: the flags asked for. */
  readonly flags?: string | number;
  /** write: bytes asked for. */
  readonly length?: number;
}

/** undefined: do it; 'EXXX': fail with that errno; a number (write only): take that many bytes. */
export type Rule = (call: Call) => string | number | undefined;

export function errnoError(code: string, call: Call): NodeJS.ErrnoException {
  return Object.assign(new Error(`${code}: injected, ${call.op} '${call.path}'`), {
    code,
    syscall: call.op,
    path: call.path,
  });
}

/** True for an open that writes (a knob, a journal temporary file). */
export function opensForWrite(c: Call): boolean {
  if (c.op !== 'open') return false;
  return typeof c.flags === 'string' ? c.flags !== 'r' : ((c.flags ?? 0) as number & 3) !== constants.O_RDONLY;
}

export interface FaultOptions {
  /** Every call, in order. */
  readonly log?: Call[];
  /** Skip the real fsync(2)s (tests of other faults on a loaded machine; durability has its own tests). */
  readonly noSync?: boolean;
}

export function faultyFileOps(rule: Rule, opts: FaultOptions = {}): (real: FileOps) => FileOps {
  const log = opts.log;
  return (real) => {
    const paths = new Map<number, string>();
    const gate = (call: Call): string | number | undefined => {
      log?.push(call);
      const r = rule(call);
      if (typeof r === 'string') throw errnoError(r, call);
      return r;
    };
    return {
      openSync(path, flags, mode) {
        gate({ op: 'open', path, flags });
        const fd = real.openSync(path, flags, mode);
        paths.set(fd, path);
        return fd;
      },
      writeSync(fd, data, offset, length) {
        const take = gate({ op: 'write', path: paths.get(fd) ?? `fd ${fd}`, length });
        const n = typeof take === 'number' ? Math.min(take, length) : length;
        return n === 0 ? 0 : real.writeSync(fd, data, offset, n);
      },
      fsyncSync(fd) {
        gate({ op: 'fsync', path: paths.get(fd) ?? `fd ${fd}` });
        if (opts.noSync !== true) real.fsyncSync(fd);
      },
      closeSync(fd) {
        const path = paths.get(fd) ?? `fd ${fd}`;
        paths.delete(fd);
        real.closeSync(fd);
        gate({ op: 'close', path });
      },
      renameSync(from, to) {
        gate({ op: 'rename', path: to });
        real.renameSync(from, to);
      },
      unlinkSync(path) {
        gate({ op: 'unlink', path });
        real.unlinkSync(path);
      },
      mkdirSync(path, mode) {
        gate({ op: 'mkdir', path });
        return real.mkdirSync(path, mode);
      },
    };
  };
}

/** Runs fn with the rule in force (until its promise settles, if it returns one), then puts the real calls back. */
export function withFileFaults<T>(rule: Rule, fn: () => T, opts: FaultOptions = {}): T {
  const before = interceptFileOps(faultyFileOps(rule, opts));
  const restore = () => void interceptFileOps(() => before);
  let result: T;
  try {
    result = fn();
  } catch (e) {
    restore();
    throw e;
  }
  if (result instanceof Promise) return result.finally(restore) as T;
  restore();
  return result;
}
