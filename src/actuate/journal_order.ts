// The order of change sets. New ids are a sequence, 1, 2, 3 ..., allocated under the journal
// lock from a counter file, so creation order never depends on the clock (two applies in one
// second, a clock set back by NTP). Ids of older journals ("20250105-142301", "...-2" for the
// second set of that second) are still read: they all come before the numbered ones, ordered by
// their time and then their "-N" suffix (file names sort "X-2" before "X", which once made
// `rollback --all` undo the older of two sets first).

export interface Ordered {
  readonly id: string;
  readonly time: string;
}

const NUMBERED = /^[1-9]\d{0,14}$/;
const DATED = /^(\d{8}-\d{6})(?:-(\d+))?$/;

/** The sequence number of a numbered id ("7" -> 7), or null for an older, dated id. */
export function idNumber(id: string): number | null {
  return NUMBERED.test(id) ? Number(id) : null;
}

function datedKey(cs: Ordered): [string, number] {
  const m = DATED.exec(cs.id);
  return m ? [m[1]!, Number(m[2] ?? 1)] : [cs.time, 1];
}

/** Sorts oldest first (for Array.prototype.sort). */
export function compareChangeSets(a: Ordered, b: Ordered): number {
  const na = idNumber(a.id);
  const nb = idNumber(b.id);
  if (na !== null || nb !== null) return na === null ? -1 : nb === null ? 1 : na - nb;
  const [ta, sa] = datedKey(a);
  const [tb, sb] = datedKey(b);
  if (ta !== tb) return ta < tb ? -1 : 1;
  if (sa !== sb) return sa - sb;
  return a.time < b.time ? -1 : a.time > b.time ? 1 : 0;
}

/** The leading number of a file name ("7.json", "7.json.2"), or 0. */
export function nameNumber(name: string): number {
  const m = /^([1-9]\d{0,14})\./.exec(name);
  return m ? Number(m[1]) : 0;
}

/** Parses the counter file ("41\n"); 0 when it is missing or unreadable (the files then decide). */
export function parseCounter(text: string | null): number {
  const n = text === null ? NaN : Number(text.trim());
  return Number.isSafeInteger(n) && n > 0 ? n : 0;
}
