// Checks for plan options at the edge. Every value that ends up in a unit file or a shell script
// must pass one of these: values with shell or systemd metacharacters are refused, never quoted.
import { UsageError } from '../../model/errors.js';

const GiB = 1024 ** 3;

export function toGiB(bytes: number): number {
  return bytes / GiB;
}

/** A name that goes into unit names, file names and scripts: letters, digits, . _ - only. */
export function safeName(value: string, what: string): string {
  if (!/^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/.test(value)) {
    throw new UsageError(
      `${what}: '${value}' refused: use letters, digits, '.', '_' and '-' only (no shell metacharacters)`,
    );
  }
  return value;
}

/** An absolute path without metacharacters, spaces or '..'. */
export function safePath(value: string, what: string): string {
  if (!/^\/[A-Za-z0-9._/+-]*$/.test(value) || value.split('/').includes('..')) {
    throw new UsageError(
      `${what}: '${value}' refused: an absolute path of letters, digits and . _ - + / only (no spaces, quotes or shell metacharacters)`,
    );
  }
  return value.length > 1 ? value.replace(/\/+$/, '') : value;
}

/** A command line: an absolute program path then plain words. '%' and '$' are refused too (systemd expands them). */
export function safeCommand(value: string, what: string): string[] {
  const words = value
    .trim()
    .split(/\s+/)
    .filter((w) => w !== '');
  if (words.length === 0) throw new UsageError(`${what}: empty command`);
  safePath(words[0]!, `${what} (program)`);
  for (const w of words.slice(1)) {
    if (!/^[A-Za-z0-9._/=:,@+-]+$/.test(w)) {
      throw new UsageError(
        `${what}: argument '${w}' refused: plain words only (no quotes, $, %, ;, |, &, <, >, globs or backslashes)`,
      );
    }
  }
  return words;
}

/** A URL such as spark://master:7077 or k8s://https://api:6443. */
export function safeUrl(value: string, what: string): string {
  if (!/^[a-z0-9]+:\/\/[A-Za-z0-9._:/-]+$/.test(value))
    throw new UsageError(`${what}: '${value}' refused: expected e.g. spark://master:7077`);
  return value;
}

export function intIn(text: string, what: string, lo: number, hi: number): number {
  if (!/^\d+$/.test(text.trim())) throw new UsageError(`${what}: '${text}' is not a whole number`);
  const v = Number(text);
  if (v < lo || v > hi) throw new UsageError(`${what}: ${v} is out of range ${lo}..${hi}`);
  return v;
}

export function fractionIn(text: string, what: string, lo: number, hi: number): number {
  const v = Number(text);
  if (!/^\d*\.?\d+$/.test(text.trim()) || !(v >= lo && v <= hi))
    throw new UsageError(`${what}: '${text}' must be a number from ${lo} to ${hi}`);
  return v;
}
