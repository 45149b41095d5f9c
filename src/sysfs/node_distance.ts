// nodeN/distance: one line of SLIT distances, in the order of node/online ("10 21").
// SLIT distances are one byte (ACPI 6.5, 5.2.17): 10 is local, 255 unreachable.
import { SysfsParseError } from '../model/errors.js';
import { NODE_DIR } from './node_list.js';
import { readParsed } from './read_parsed.js';
import type { SysRoot } from './root.js';

export function parseNodeDistance(text: string): number[] {
  const s = text.trim();
  if (s === '') return [];
  const words = s.split(/\s+/);
  if (words.length > 1024) throw new SysfsParseError('more distances than the kernel has nodes', { text: s });
  return words.map((w) => {
    if (!/^\d{1,3}$/.test(w) || Number(w) > 255) throw new SysfsParseError('not a distance (0..255)', { text: s });
    return Number(w);
  });
}

export function readNodeDistance(root: SysRoot, node: number): number[] | null {
  return readParsed(root, `${NODE_DIR}/node${node}/distance`, parseNodeDistance);
}
