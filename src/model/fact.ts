// A value read from one kernel file, or the reason it could not be read.
// "Absent is not broken": a missing file is a normal fact on many kernels and containers.
// 'empty': the file exists and holds nothing (an attribute with no value now);
// 'unparseable': it holds something numakit cannot understand (a warning says what and where).

/**
 * Why a fact is absent. 'no-memory': the kernel could not allocate memory to produce the file
 * (ENOMEM: under memory pressure, as in a cgroup at its memory.max): a fact of the moment, read
 * again later, not a property of the file.
 */
export type AbsentReason = 'missing' | 'no-permission' | 'empty' | 'unparseable' | 'no-memory';

export type Fact<T> =
  | { readonly path: string; readonly value: T }
  | { readonly path: string; readonly value: null; readonly absent: AbsentReason };

export function present<T>(path: string, value: T): Fact<T> {
  return { path, value };
}

export function absent<T>(path: string, reason: AbsentReason): Fact<T> {
  return { path, value: null, absent: reason };
}

export function isPresent<T>(f: Fact<T>): f is { path: string; value: T } {
  return f.value !== null;
}
