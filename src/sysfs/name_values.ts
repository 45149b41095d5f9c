// The number rule of the "name value" files (/proc/meminfo, nodeN/meminfo, nodeN/vmstat,
// nodeN/numastat, /proc/vmstat): each value is a JS number when one holds it exactly; a value
// beyond 2^53 is kept exact as a BigInt beside the numbers, out of their way. With 5-level
// paging (Ice Lake and later servers) /proc/meminfo's VmallocTotal is 13743895347199 kB, 2^57
// bytes less a page: a value numakit does not use must never cost the file, and one it does use
// is read without loss (exactValue) or refused by name (numberOf), never rounded.
import { SysfsParseError } from '../model/errors.js';
import { isSafeDecimal } from '../model/limits.js';

const BEYOND = Symbol('values beyond 2^53');

/**
 * name -> value in file order. Values beyond 2^53 are not among the string keys (Object.keys,
 * JSON and `m.Name` do not see them): exactValue reads them.
 */
export type NameValues = Record<string, number> & { [BEYOND]?: Map<string, bigint> };

/** Sets `name` to `digits` (a decimal integer, maybe negative) times `scale` (kB: 1024). */
export function setValue(out: NameValues, name: string, digits: string, scale = 1): void {
  const v = Number(digits) * scale;
  if (isSafeDecimal(digits) && Number.isSafeInteger(v)) {
    out[name] = v;
    return;
  }
  delete out[name];
  let big = out[BEYOND];
  if (big === undefined) Object.defineProperty(out, BEYOND, { value: (big = new Map()), enumerable: false });
  big.set(name, BigInt(digits) * BigInt(scale));
}

/** The exact value of `name` (numbers and BigInts alike), or undefined when the file has no such line. */
export function exactValue(m: NameValues, name: string): bigint | undefined {
  const v = m[name];
  return v !== undefined ? BigInt(v) : m[BEYOND]?.get(name);
}

/** `name` as a number for a reader that uses it: undefined when absent; beyond 2^53 it is refused by name. */
export function numberOf(m: NameValues, name: string): number | undefined {
  const big = m[BEYOND]?.get(name);
  if (big !== undefined) throw new SysfsParseError(`${name} ${big} is beyond 2^53`);
  return m[name];
}
