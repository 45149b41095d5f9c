// Read and parse one kernel file, the way every reader should: a missing file is absent, an
// empty one is absent ('empty': an attribute with no value now, e.g. cpuN/online on some
// kernels), and one that cannot be parsed is absent ('unparseable') with a warning naming the
// file, the line and what was expected. One bad file costs its fact, never the command.
import { SysfsParseError } from '../model/errors.js';
import { absent, present, type Fact } from '../model/fact.js';
import { cleanText } from '../model/limits.js';
import { parseAt } from './parse_util.js';
import { readFile } from './read.js';
import { warn, type SysRoot } from './root.js';

export interface ParseOptions {
  /** An empty file is a value (an empty list: a node without CPUs), not "no value". */
  readonly emptyIsValue?: boolean;
}

/** Records a parse error as a warning on the root. */
export function warnParse(root: SysRoot, e: SysfsParseError): void {
  warn(root, { path: e.path, line: e.line, problem: e.problem });
}

/** Runs `parse` on text read from `path`; a SysfsParseError becomes a warning and null. */
export function parseOrWarn<T>(root: SysRoot, path: string, text: string, parse: (t: string) => T): T | null {
  try {
    return parseAt(path, text, parse);
  } catch (e) {
    if (!(e instanceof SysfsParseError)) throw e;
    warnParse(root, e);
    return null;
  }
}

/** The parsed file as a Fact: present, or absent with its reason. */
export function readFact<T>(root: SysRoot, path: string, parse: (t: string) => T, opts: ParseOptions = {}): Fact<T> {
  const r = readFile(root, path);
  if (!r.ok) return absent(path, r.reason);
  if (!opts.emptyIsValue && cleanText(r.text).trim() === '') return absent(path, 'empty');
  const v = parseOrWarn(root, path, r.text, parse);
  return v === null ? absent(path, 'unparseable') : present(path, v);
}

/** The parsed file, or null when it is absent for any reason (see readFact). */
export function readParsed<T>(root: SysRoot, path: string, parse: (t: string) => T, opts: ParseOptions = {}): T | null {
  return readFact(root, path, parse, opts).value;
}
