// Fault injection for src/native: makes chosen syscalls fail with an errno (the real binding
// is not called), rewrites move_pages' per-page statuses, and in "dry" mode records instead of
// making the calls that change this process (set_mempolicy, sched_setaffinity of itself, mbind,
// move_pages, migrate_pages, execvp), so a test of `run` never rebinds the test runner.
// Goes through interceptLibc: the code under test, error messages included, is the shipped code.
import { constants } from 'node:os';
import { interceptLibc, type FaultableCall } from '../../src/native/libc.js';

/** The errnos every native call is tested with (issue 18), and their strerror text. */
export const FAULTS = ['ESRCH', 'EPERM', 'EINVAL', 'ENOMEM', 'EBUSY', 'EFAULT'] as const;
export const FAULT_MESSAGE: Readonly<Record<(typeof FAULTS)[number], string>> = {
  ESRCH: 'No such process',
  EPERM: 'Operation not permitted',
  EINVAL: 'Invalid argument',
  ENOMEM: 'Cannot allocate memory',
  EBUSY: 'Device or resource busy',
  EFAULT: 'Bad address',
};

export interface NativeFault {
  readonly call: FaultableCall;
  /** The errno name, e.g. 'EPERM'. */
  readonly errno: string;
  /** Calls of `call` let through before the first failure (default 0). */
  readonly after?: number;
}

export interface NativeFaultSpec {
  readonly fail?: readonly NativeFault[];
  /** move_pages: page index -> errno name put in its status (-errno), as the kernel reports a page it could not move or find. */
  readonly pageStatus?: Readonly<Record<number, string>>;
  /** Record calls that change state instead of making them (execvp then fails with ENOEXEC: nothing runs). */
  readonly dry?: boolean;
}

/** Calls that change the kernel's state (dry mode records them). */
const CHANGING = new Set<FaultableCall>([
  'sched_setaffinity',
  'set_mempolicy',
  'mbind',
  'move_pages',
  'migrate_pages',
  'execvp',
]);

export function errnoNumber(name: string): number {
  const n = (constants.errno as Record<string, number>)[name];
  if (n === undefined) throw new Error(`unknown errno ${name}`);
  return n;
}

/** Installs the faults; returns the log of calls ("set_mempolicy", "execvp true" ...) and the uninstall function. */
export function injectNativeFaults(spec: NativeFaultSpec): { calls: string[]; restore: () => void } {
  const calls: string[] = [];
  const seen = new Map<FaultableCall, number>();
  interceptLibc((name, real, koffi) => (...args: unknown[]) => {
    const n = seen.get(name) ?? 0;
    seen.set(name, n + 1);
    calls.push(name === 'execvp' ? `execvp ${String(args[0])}` : name);
    const fault = spec.fail?.find((f) => f.call === name && n >= (f.after ?? 0));
    if (fault !== undefined) {
      koffi.errno(errnoNumber(fault.errno));
      return -1;
    }
    // move_pages with nodes = NULL only reads: always real. Moving, or any other change, is skipped when dry.
    const changes = CHANGING.has(name) && !(name === 'move_pages' && args[3] === null);
    if (spec.dry === true && changes && name === 'execvp') {
      koffi.errno(errnoNumber('ENOEXEC'));
      return -1;
    }
    const rc = spec.dry === true && changes ? 0 : real(...args);
    if (name !== 'move_pages' || spec.pageStatus === undefined || rc < 0) return rc;
    const status = args[4] as Int32Array;
    let failed = 0;
    for (const [i, code] of Object.entries(spec.pageStatus)) {
      if (Number(i) >= status.length) continue;
      status[Number(i)] = -errnoNumber(code);
      failed++;
    }
    // The kernel returns the count of pages it did not move (4.17+) when moving; 0 when only asked.
    return args[3] === null ? 0 : failed;
  });
  return { calls, restore: () => interceptLibc(null) };
}
