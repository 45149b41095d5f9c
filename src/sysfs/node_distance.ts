// nodeN/distance: one line of SLIT distances, in the order of node/online ("10 21").
import { SysfsParseError } from '../model/errors.js';
import { NODE_DIR } from './node_list.js';
import { parseAt } from './parse_util.js';
import { readText } from './read.js';
import type { SysRoot } from './root.js';

export function parseNodeDistance(text: string): number[] {
  const s = text.trim();
  if (s === '') return [];
  return s.split(/\s+/).map((w) => {
    if (!/^\d+$/.test(w)) throw new SysfsParseError('not a distance', { text: s });
    return Number(w);
  });
}

export function readNodeDistance(root: SysRoot, node: number): number[] | null {
  const path = `${NODE_DIR}/node${node}/distance`;
  const text = readText(root, path);
  return text === null ? null : parseAt(path, text, parseNodeDistance);
}
