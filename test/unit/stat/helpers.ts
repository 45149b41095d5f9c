// Runs `numakit stat` / `numakit top` in-process on a fixture root, capturing output, and
// compares text with golden files (UPDATE_GOLDEN=1 rewrites them).
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { assertGolden as sharedAssertGolden, runCommand, type Ran } from '../../helpers/cli.js';
import { openRoot, type SysRoot } from '../../../src/sysfs/root.js';

const HERE = dirname(fileURLToPath(import.meta.url));
export const FIXTURES = join(HERE, '../../fixtures/stat');
export const GOLDEN = join(HERE, '../../golden/stat');

export function fixtureRoot(name: string): SysRoot {
  return openRoot(join(FIXTURES, name));
}

export { runCommand, type Ran };

export async function runStat(fixture: string, args: string[], env: Record<string, string> = {}): Promise<Ran> {
  const stat = (await import('../../../src/cli/commands/stat.js')).default;
  return runCommand(stat, fixtureRoot(fixture), args, { env });
}

/** Compares with test/golden/stat/NAME; UPDATE_GOLDEN=1 writes it instead. */
export function assertGolden(name: string, actual: string): void {
  sharedAssertGolden(`stat/${name}`, actual);
}
