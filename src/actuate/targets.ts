// Where a change's value lives and how two values compare. Pure apart from the reads done
// through System.
import { changePath, formatIrqList, parseIrqList, type Change, type PlannedChange } from '../model/change.js';
import { parseCpuList, parseCpuMask } from '../model/cpuset.js';
import { NumakitError } from '../model/errors.js';
import { maskOnNode } from '../policy/knowledge/irq_placement.js';
import type { System } from './system.js';

/**
 * Candidate files for a change, first existing wins. The numa_balancing_scan_* sysctls moved
 * to debugfs (sys/kernel/debug/sched/numa_balancing/scan_*) in 5.13 (kernel commit 8a99b6833c88).
 */
export function candidatePaths(c: Change): string[] {
  const path = changePath(c);
  if (path === null) return [];
  const m = c.kind === 'sysctl' ? /^kernel\.numa_balancing_scan_(\w+)$/.exec(c.target) : null;
  return m ? [path, `sys/kernel/debug/sched/numa_balancing/scan_${m[1]}`] : [path];
}

/** The logical value of a knob's text: the [selected] word of a selector file, else the trimmed text. */
export function knobValue(raw: string): string {
  const m = /\[([^\]]+)\]/.exec(raw);
  return m ? m[1]! : raw.trim().replace(/\s+/g, ' ');
}

const MASK_FILE = /(^|\/)(rps_cpus|xps_cpus|smp_affinity)$/;

function sameList(a: string, b: string, parse: (t: string) => number[]): boolean {
  try {
    return parse(a).join(',') === parse(b).join(',');
  } catch {
    return a === b;
  }
}

/** True when the knob's current value equals the wanted one (CPU lists and masks compared as sets). */
export function sameValue(c: Change, path: string | null, current: string, wanted: string): boolean {
  if (c.kind === 'irq-affinity') return sameList(current, wanted, parseCpuList);
  if (c.kind === 'irqbalance-ban') return sameList(current, wanted, parseIrqList);
  if (path !== null && MASK_FILE.test(path)) return sameList(current, wanted, parseCpuMask);
  return knobValue(current) === knobValue(wanted);
}

function isSubset(a: string, b: string, parse: (t: string) => number[]): boolean {
  try {
    const want = new Set(parse(b));
    const have = parse(a);
    return have.length > 0 && have.every((x) => want.has(x));
  } catch {
    return false;
  }
}

function inRange(text: string, [lo, hi]: readonly [number, number]): boolean {
  if (!/^\d+$/.test(text)) return false;
  const v = Number(text);
  return v >= lo && v <= hi;
}

/** An IRQ whose mask is already on the change's node, by the one IRQ rule doctor reports too. */
function irqPlaced(current: string, nodeCpus: string): boolean {
  try {
    return maskOnNode(parseCpuList(current), parseCpuList(nodeCpus));
  } catch {
    return false;
  }
}

/**
 * True when the current value needs no write for this change: it is the change's value, or one
 * the change accepts as as good (`accept`; with `subset`, a non-empty part of its CPU set).
 * Only for deciding what to write: a restore compares exactly (sameValue).
 */
export function satisfies(c: Change, path: string | null, current: string): boolean {
  if (sameValue(c, path, current, c.value)) return true;
  if (c.kind === 'irq-affinity' && c.subset === true) return irqPlaced(current, c.value);
  if (c.kind === 'sysfs' && c.subset === true) return isSubset(current, c.value, parseCpuMask);
  if (c.kind === 'sysctl' && c.acceptRange !== undefined && inRange(knobValue(current), c.acceptRange)) return true;
  return (
    (c.kind === 'sysctl' || c.kind === 'sysfs') && (c.accept ?? []).some((w) => knobValue(current) === knobValue(w))
  );
}

/** Reads the target: the resolved path and its raw text (or service state); null when absent. */
export function readTarget(sys: System, c: Change): { path: string | null; raw: string } | null {
  if (c.kind === 'service') {
    const state = sys.services?.state(c.target) ?? null;
    return state === null ? null : { path: null, raw: state };
  }
  if (c.kind === 'irqbalance-ban') return sys.irqbalance ? { path: null, raw: bannedNow(sys.irqbalance) } : null;
  for (const path of candidatePaths(c)) {
    const raw = sys.read(path);
    if (raw !== null) return { path, raw };
  }
  return null;
}

/** The banned set as text; '?' when the socket refuses this user (it is root's: a dry run as non-root). */
function bannedNow(irqbalance: NonNullable<System['irqbalance']>): string {
  try {
    return formatIrqList(irqbalance.banned());
  } catch (e) {
    if (process.getuid?.() === 0) throw e;
    return '?';
  }
}

/** Compares each change with the system now. */
export function planChanges(sys: System, changes: readonly Change[]): PlannedChange[] {
  return changes.map((change) => {
    const t = readTarget(sys, change);
    if (t === null) return { change, path: candidatePaths(change)[0] ?? null, current: null, action: 'absent' };
    const same = satisfies(change, t.path, t.raw);
    return { change, path: t.path, current: knobValue(t.raw), action: same ? 'same' : 'change' };
  });
}

/** Writes a change's value (or a restore value) to the resolved target. */
export function writeTarget(sys: System, c: Change, path: string | null, value: string): void {
  if (c.kind === 'service') {
    if (sys.services === null) throw new Error('service change without a service manager');
    sys.services.set(c.target, value === 'running' ? 'running' : 'stopped');
    return;
  }
  if (c.kind === 'irqbalance-ban') {
    if (!sys.irqbalance) throw new NumakitError('irqbalance banned IRQs: irqbalance does not run (or has no socket)');
    sys.irqbalance.setBanned(parseIrqList(value));
    return;
  }
  sys.write(path!, value);
}
