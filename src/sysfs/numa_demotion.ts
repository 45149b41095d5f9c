// /sys/kernel/mm/numa/demotion_enabled (5.15+): "true" lets reclaim demote cold pages to a
// slower (CPU-less) node instead of dropping or swapping them. Documentation/ABI/testing/
// sysfs-kernel-mm-numa. Absent on older kernels.
import { SysfsParseError } from '../model/errors.js';
import type { Fact } from '../model/fact.js';
import { readFact } from './read_parsed.js';
import type { SysRoot } from './root.js';

export const DEMOTION_PATH = 'sys/kernel/mm/numa/demotion_enabled';

/** "true"/"false" (what the kernel prints), also "1"/"0"/"y"/"n" as kstrtobool takes them. */
export function parseDemotion(text: string): boolean {
  const s = text.trim().toLowerCase();
  if (['true', '1', 'y', 'yes', 'on'].includes(s)) return true;
  if (['false', '0', 'n', 'no', 'off'].includes(s)) return false;
  throw new SysfsParseError('not true or false', { text: s });
}

/** Absent on kernels before 5.15; unparseable is absent with a warning (read_parsed.ts). */
export function readDemotion(root: SysRoot): Fact<boolean> {
  return readFact(root, DEMOTION_PATH, parseDemotion);
}
