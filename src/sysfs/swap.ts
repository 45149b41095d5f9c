// Swap in use, from /proc/meminfo SwapTotal/SwapFree. The kernel keeps no per-node swap
// counter; which node ran short is read from the nodes' free memory beside it.
import type { SwapUsage } from '../model/doctor_input.js';
import { SysfsParseError } from '../model/errors.js';
import { absent, present, type Fact } from '../model/fact.js';
import { numberOf } from './name_values.js';
import { parseMeminfo } from './node_meminfo.js';
import { readFile } from './read.js';
import { parseOrWarn } from './read_parsed.js';
import type { SysRoot } from './root.js';

export function parseSwapUsage(meminfoText: string): SwapUsage {
  const m = parseMeminfo(meminfoText);
  const total = numberOf(m, 'SwapTotal');
  const free = numberOf(m, 'SwapFree');
  if (total === undefined || free === undefined) throw new SysfsParseError('meminfo has no SwapTotal/SwapFree');
  return { totalBytes: total, usedBytes: Math.max(0, total - free) };
}

export function readSwapUsage(root: SysRoot): Fact<SwapUsage> {
  const path = 'proc/meminfo';
  const r = readFile(root, path);
  if (!r.ok) return absent(path, r.reason);
  // Synthetic or trimmed trees may carry a meminfo without swap lines: that is "absent", not broken.
  if (!/^SwapTotal:/m.test(r.text)) return absent(path, 'missing');
  const v = parseOrWarn(root, path, r.text, parseSwapUsage);
  return v === null ? absent(path, 'unparseable') : present(path, v);
}
