// Runs `numakit doctor` in-process on a tree, capturing output the way main() would, and
// compares with golden files under test/golden/doctor (UPDATE_GOLDEN=1 rewrites them).
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import doctor from '../../../src/cli/commands/doctor.js';
import { describeError } from '../../../src/cli/main.js';
import type { Context } from '../../../src/cli/context.js';
import { openRoot, type SysRoot } from '../../../src/sysfs/root.js';
import { writeDoctorMachine, type Variant } from '../../fixtures/doctor/machine.js';

const HERE = dirname(fileURLToPath(import.meta.url));
const GOLDEN = join(HERE, '../../golden/doctor');
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

export async function runDoctorCmd(root: SysRoot, args: string[], color = false): Promise<{ code: number; out: string; err: string }> {
  const out: string[] = [];
  const err: string[] = [];
  const ctx: Context = { root, rootGiven: true, out: (t) => void out.push(t), err: (t) => void err.push(t), isTTY: color, color };
  try {
    return { code: await doctor.run(args, ctx), out: out.join(''), err: err.join('') };
  } catch (e) {
    const d = describeError(e);
    return { code: d.code, out: out.join(''), err: `numakit: ${d.message}\n` };
  }
}

export function assertGolden(name: string, actual: string): void {
  const path = join(GOLDEN, name);
  if (process.env['UPDATE_GOLDEN'] === '1') {
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, actual);
    return;
  }
  if (!existsSync(path)) assert.fail(`missing golden file ${path} (run with UPDATE_GOLDEN=1)`);
  assert.equal(actual, readFileSync(path, 'utf8'), `output differs from ${path}`);
}

export function writeIn(dir: string, rel: string, text: string): void {
  mkdirSync(dirname(join(dir, rel)), { recursive: true });
  writeFileSync(join(dir, rel), text);
}
