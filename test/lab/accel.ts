// KVM only where it really works (LAB.md): /dev/kvm opens, the CPU has vmx/svm, and the module is
// not kvm_pvm (a software nested KVM without vmx/svm, under which a guest hangs in early boot).
import { closeSync, openSync, readFileSync } from 'node:fs';
import type { Accel } from './qemu_args.js';

export interface KvmFacts {
  readonly devOpens: boolean;
  readonly cpuinfo: string;
  readonly modules: string;
}

/** Pure decision from the three facts. */
export function chooseAccel(f: KvmFacts): Accel {
  const hasVirt = /^flags\s*:.*\b(vmx|svm)\b/m.test(f.cpuinfo);
  const pvm = /^kvm_pvm\b/m.test(f.modules);
  return f.devOpens && hasVirt && !pvm ? 'kvm' : 'tcg';
}

function readOr(path: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return '';
  }
}

function kvmOpens(): boolean {
  try {
    closeSync(openSync('/dev/kvm', 'r+'));
    return true;
  } catch {
    return false;
  }
}

/** LAB_ACCEL=tcg|kvm overrides the detection. */
export function detectAccel(): Accel {
  const forced = process.env['LAB_ACCEL'];
  if (forced === 'tcg' || forced === 'kvm') return forced;
  return chooseAccel({ devOpens: kvmOpens(), cpuinfo: readOr('/proc/cpuinfo'), modules: readOr('/proc/modules') });
}
