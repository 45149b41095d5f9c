// /sys/kernel/mm/numa/demotion_enabled (5.15+): "true" lets reclaim demote cold pages to a
// slower (CPU-less) node instead of dropping or swapping them. Documentation/ABI/testing/
// sysfs-kernel-mm-numa. Absent on older kernels.
import { SysfsParseError } from '../model/errors.js';
import { absent, present, type Fact } from '../model/fact.js';
import { parseAt } from './parse_util.js';
import { readFile } from './read.js';
import type { SysRoot } from './root.js';

export const DEMOTION_PATH = 'sys/kernel/mm/numa/demotion_enabled';

/** "true"/"false" (what the kernel prints), also "1"/"0"/"y"/"n" as kstrtobool takes them. */
export function parseDemotion(text: string): boolean {
  const s = text.trim().toLowerCase();
  if (['true', '1', 'y', 'yes', 'on'].includes(s)) return true;
  if (['false', '0', 'n', 'no', 'off'].includes(s)) return false;
  throw new SysfsParseError('not true or false', { text: s });
}

export function readDemotion(root: SysRoot): Fact<boolean> {
  const r = readFile(root, DEMOTION_PATH);
  return r.ok ? present(DEMOTION_PATH, parseAt(DEMOTION_PATH, r.text, parseDemotion)) : absent(DEMOTION_PATH, r.reason);
}
