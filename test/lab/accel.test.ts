import assert from 'node:assert/strict';
import { it } from 'node:test';
import { chooseAccel } from './accel.js';

const vmx = 'processor\t: 0\nflags\t\t: fpu vme vmx sse\n';
const plain = 'processor\t: 0\nflags\t\t: fpu vme sse\n';

it('KVM only when /dev/kvm opens, the CPU has vmx/svm and the module is not kvm_pvm', () => {
  assert.equal(chooseAccel({ devOpens: true, cpuinfo: vmx, modules: 'kvm_intel 1 0\n' }), 'kvm');
  assert.equal(chooseAccel({ devOpens: false, cpuinfo: vmx, modules: '' }), 'tcg');
  assert.equal(chooseAccel({ devOpens: true, cpuinfo: plain, modules: '' }), 'tcg');
  assert.equal(chooseAccel({ devOpens: true, cpuinfo: vmx, modules: 'kvm_pvm 1 0\nkvm 2 1\n' }), 'tcg');
});
