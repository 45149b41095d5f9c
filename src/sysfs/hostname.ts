// /proc/sys/kernel/hostname: the host's name (UTS namespace). Snapshots carry it so that a
// fleet report (numakit fleet report) can tell hosts apart; doctor --json prints it as "host".
import type { Fact } from '../model/fact.js';
import { SysfsParseError } from '../model/errors.js';
import { readFact } from './read_parsed.js';
import type { SysRoot } from './root.js';

export const HOSTNAME_PATH = 'proc/sys/kernel/hostname';

/** A host name as the kernel holds it (up to 64 bytes, no spaces); trailing newline/NULs dropped. */
export function parseHostname(text: string): string {
  const name = text.replace(/\0+$/, '').trim();
  if (name === '' || name.length > 253 || /[\s/\x00-\x1f\x7f]/.test(name))
    throw new SysfsParseError('not a host name', { text });
  return name;
}

export function readHostname(root: SysRoot): Fact<string> {
  return readFact(root, HOSTNAME_PATH, parseHostname);
}

/** The host name, or null when absent or unparseable (a label never fails the command that prints it). */
export function hostNameOf(root: SysRoot): string | null {
  return readHostname(root).value;
}
