// The systemd service manager through systemctl. Absent systemctl (containers, non-systemd
// distributions) means no service manager: service changes are reported as absent.
import { spawnSync } from 'node:child_process';
import type { ServiceState } from '../model/change.js';
import { NumakitError } from '../model/errors.js';
import type { ServiceManager } from './system.js';

function systemctl(args: string[]): { status: number | null; stdout: string; stderr: string; missing: boolean } {
  const r = spawnSync('systemctl', args, { encoding: 'utf8', timeout: 60_000 });
  const missing = (r.error as NodeJS.ErrnoException | undefined)?.code === 'ENOENT';
  return { status: r.status, stdout: r.stdout ?? '', stderr: r.stderr ?? '', missing };
}

/** Parses `systemctl show -p LoadState,ActiveState` output; null when the unit is not installed. */
export function parseUnitState(text: string): ServiceState | null {
  const props = Object.fromEntries(
    text
      .split('\n')
      .filter((l) => l.includes('='))
      .map((l) => [l.slice(0, l.indexOf('=')), l.slice(l.indexOf('=') + 1).trim()]),
  );
  if (props.LoadState !== 'loaded') return null;
  // activating/reloading count as running: stopping them is a real change.
  return props.ActiveState === 'active' || props.ActiveState === 'activating' || props.ActiveState === 'reloading'
    ? 'running'
    : 'stopped';
}

/** The real service manager, or null when systemctl is not there or systemd is not running. */
export function openSystemctl(): ServiceManager | null {
  const probe = systemctl(['is-system-running']);
  if (probe.missing || /offline|unknown/.test(probe.stdout)) return null;
  return {
    state(unit) {
      const r = systemctl(['show', '--no-pager', '-p', 'LoadState,ActiveState', unit]);
      return r.status === 0 ? parseUnitState(r.stdout) : null;
    },
    set(unit, state) {
      const r = systemctl([state === 'running' ? 'start' : 'stop', unit]);
      if (r.status !== 0)
        throw new NumakitError(
          `systemctl ${state === 'running' ? 'start' : 'stop'} ${unit} failed: ${r.stderr.trim().split('\n')[0] ?? `exit ${r.status}`}`,
        );
    },
  };
}
