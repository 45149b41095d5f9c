// tuned through tuned-adm: which profile is active, and switching it. tuned-adm talks to the tuned
// daemon over D-Bus; without a running daemon it falls back to a no-daemon mode that can neither
// verify a profile nor turn tuned off (tuned/admin/admin.py), so numakit switches profiles only
// when the daemon runs: its pid file (/run/tuned/tuned.pid, tuned/consts.py) names a live process.
import { spawnSync } from 'node:child_process';
import { NumakitError } from '../model/errors.js';
import { readText } from '../sysfs/read.js';
import type { SysRoot } from '../sysfs/root.js';
import { readTunedProfile } from '../sysfs/tuned.js';
import { alive } from '../runtime/pid_alive.js';

export interface TunedControl {
  /** The active profiles ([] when tuned runs with none). */
  active(): string[];
  /** tuned-adm profile NAMES, or tuned-adm off for none; throws NumakitError naming what failed. */
  activate(profiles: readonly string[]): void;
}

const PID_FILE = 'run/tuned/tuned.pid';

/** True when the tuned daemon runs under this root. */
export function tunedRuns(root: SysRoot): boolean {
  const pid = Number((readText(root, PID_FILE) ?? '').trim());
  return root.isReal && Number.isInteger(pid) && pid > 0 && alive(pid);
}

/** The real tuned, or null when its daemon does not run (or the root is not the real /). */
export function openTuned(root: SysRoot): TunedControl | null {
  if (!tunedRuns(root)) return null;
  const active = () => {
    const f = readTunedProfile(root);
    return f.value ?? [];
  };
  return {
    active,
    activate(profiles) {
      const args = profiles.length === 0 ? ['off'] : ['profile', ...profiles];
      // Under a slow machine (a TCG guest) a switch takes seconds: tuned-adm waits for the daemon.
      const r = spawnSync('tuned-adm', args, { encoding: 'utf8', timeout: 180_000 });
      const said = `${r.stdout ?? ''}\n${r.stderr ?? ''}`.trim().split('\n').filter(Boolean);
      if (r.error !== undefined || r.status !== 0)
        throw new NumakitError(
          `tuned-adm ${args.join(' ')} failed: ${r.error?.message ?? said.at(-1) ?? `exit ${r.status}`}`,
        );
      const now = active();
      if (now.join(' ') !== profiles.join(' '))
        throw new NumakitError(
          `tuned-adm ${args.join(' ')}: the active profile is '${now.join(' ')}' afterwards${said.length > 0 ? ` (${said.at(-1)})` : ''}`,
        );
    },
  };
}
