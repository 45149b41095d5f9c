// Runs `numakit doctor` in-process on a tree, capturing output the way main() would, and
// compares with golden files under test/golden/doctor (UPDATE_GOLDEN=1 rewrites them).
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import doctor from '../../../src/cli/commands/doctor.js';
import { assertGolden as sharedAssertGolden, runCommand, type Ran } from '../../helpers/cli.js';
import { openRoot, type SysRoot } from '../../../src/sysfs/root.js';
import { writeDoctorMachine, type Variant } from '../../fixtures/doctor/machine.js';

const HERE = dirname(fileURLToPath(import.meta.url));
export const EXAMPLES = join(HERE, '../../../examples');

export function machineRoot(v: Variant, tweak?: (dir: string) => void): SysRoot {
  const dir = mkdtempSync(join(tmpdir(), `numakit-doctor-${v}-`));
  writeDoctorMachine(dir, v);
  tweak?.(dir);
  return openRoot(dir, `fixture doctor-${v}`);
}

export function exampleRoot(name: string): SysRoot {
  return openRoot(join(EXAMPLES, name), `example ${name}`);
}

export async function runDoctorCmd(root: SysRoot, args: string[], color = false): Promise<Ran> {
  return runCommand(doctor, root, args, { color });
}

export function assertGolden(name: string, actual: string): void {
  sharedAssertGolden(`doctor/${name}`, actual);
}

export function writeIn(dir: string, rel: string, text: string): void {
  mkdirSync(dirname(join(dir, rel)), { recursive: true });
  writeFileSync(join(dir, rel), text);
}
