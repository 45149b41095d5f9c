// Constructors of the changes tuning makes, in the apply engine's vocabulary (model/change.ts).
import type { ServiceChange, SysctlChange, SysfsChange } from '../../model/change.js';

const acceptOf = (accept: readonly (string | number)[]) => (accept.length > 0 ? { accept: accept.map(String) } : {});

export function sysctl(
  target: string,
  value: string | number,
  reason: string,
  accept: readonly (string | number)[] = [],
): SysctlChange {
  return { kind: 'sysctl', target, value: String(value), reason, ...acceptOf(accept) };
}

export function sysfs(
  target: string,
  value: string | number,
  reason: string,
  accept: readonly (string | number)[] = [],
): SysfsChange {
  return { kind: 'sysfs', target, value: String(value), reason, ...acceptOf(accept) };
}

export function service(target: string, value: 'running' | 'stopped', reason: string): ServiceChange {
  return { kind: 'service', target, value, reason };
}
