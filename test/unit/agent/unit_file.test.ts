// The shipped systemd unit: it runs the agent, restores after it stops (also after a crash or
// SIGKILL, through ExecStopPost), and systemd-analyze accepts it where systemd is installed.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { needTools } from '../../helpers/tools.js';

const UNIT = join(fileURLToPath(new URL('.', import.meta.url)), '../../../contrib/numakit-agent.service');
const text = readFileSync(UNIT, 'utf8');
const key = (k: string) =>
  text
    .split('\n')
    .filter((l) => l.startsWith(`${k}=`))
    .map((l) => l.slice(k.length + 1));

it('runs numakit agent, stops it with SIGTERM, and runs agent restore after it stops', () => {
  assert.match(key('ExecStart')[0]!, /numakit agent --state-dir \/var\/lib\/numakit \$OPTIONS$/);
  assert.match(key('ExecStopPost')[0]!, /numakit agent restore --state-dir \/var\/lib\/numakit$/);
  assert.deepEqual(key('KillSignal'), ['SIGTERM']);
  assert.deepEqual(key('StateDirectory'), ['numakit']);
});

it('is listed in package.json "files" (shipped)', () => {
  const pkg = JSON.parse(readFileSync(join(UNIT, '../../package.json'), 'utf8')) as { files: string[] };
  assert.ok(pkg.files.includes('contrib'));
});

it('systemd-analyze verify accepts it (when systemd is installed)', (t) => {
  if (!needTools(t, 'systemd-analyze')) return;
  const r = spawnSync('systemd-analyze', ['verify', UNIT], { encoding: 'utf8' });
  assert.equal(r.status, 0, r.stderr);
  assert.doesNotMatch(r.stderr, /numakit-agent\.service/);
});

it('is Type=notify with a watchdog (the agent sends READY=1 and WATCHDOG=1 itself)', () => {
  assert.deepEqual(key('Type'), ['notify']);
  assert.deepEqual(key('NotifyAccess'), ['main']);
  assert.deepEqual(key('WatchdogSec'), ['30s']);
});

it('is sandboxed: four capabilities, each justified in a comment; a read-only system but its state and numa_balancing', () => {
  const caps = key('CapabilityBoundingSet')[0]!.split(' ');
  assert.deepEqual(caps, ['CAP_SYS_NICE', 'CAP_SYS_PTRACE', 'CAP_SYS_ADMIN', 'CAP_NET_ADMIN']);
  for (const c of caps) assert.match(text, new RegExp(`^#\\s+${c}\\s+\\S`, 'm'), `${c} is explained`);
  assert.deepEqual(key('AmbientCapabilities'), []);
  assert.deepEqual(key('NoNewPrivileges'), ['yes']);
  assert.deepEqual(key('ProtectSystem'), ['strict']);
  assert.deepEqual(key('ReadWritePaths'), ['/proc/sys/kernel/numa_balancing']);
  for (const k of ['ProtectHome', 'PrivateTmp', 'ProtectKernelTunables', 'ProtectControlGroups', 'PrivateDevices'])
    assert.deepEqual(key(k), ['yes'], k);
  assert.deepEqual(key('SystemCallFilter')[0], '@system-service @pkey');
  assert.match(key('SystemCallFilter')[1]!, /^~ptrace process_vm_readv process_vm_writev /);
  assert.deepEqual(key('ProtectProc'), [], 'invisible would hide the processes it places');
});

it("grants what the watch needs: CAP_NET_ADMIN and AF_NETLINK (the kernel's process events), no other address family", () => {
  assert.ok(key('CapabilityBoundingSet')[0]!.split(' ').includes('CAP_NET_ADMIN'));
  assert.deepEqual(key('RestrictAddressFamilies')[0]!.split(' '), ['AF_INET', 'AF_INET6', 'AF_UNIX', 'AF_NETLINK']);
  assert.match(text, /^#.*AF_NETLINK for the process\n?#?\s*events/m);
});

/** systemd-analyze security --offline=yes UNIT: the overall exposure (0 safe .. 10 unsafe). */
function exposure(unit: string): number {
  const r = spawnSync('systemd-analyze', ['security', '--offline=yes', unit], { encoding: 'utf8' });
  const m = /Overall exposure level for \S+: (\d+\.\d)/.exec(`${r.stdout}${r.stderr}`);
  assert.ok(m, `${r.stdout}${r.stderr}`);
  return Number(m[1]);
}

it('systemd-analyze security: the agent at most 3.0 (9.6 before), the exporter at most 4.0', (t) => {
  if (!needTools(t, 'systemd-analyze')) return;
  const agent = exposure(UNIT);
  assert.ok(agent <= 3.0, `agent exposure ${agent}`);
  const exporter = exposure(join(UNIT, '../numakit-exporter.service'));
  assert.ok(exporter <= 4.0, `exporter exposure ${exporter}`);
});

it("deploy/ansible's unit template is this unit line for line, but for the command, the state directory and its header", () => {
  const body = (t: string) => t.slice(t.indexOf('[Unit]')).split('\n');
  const j2 = readFileSync(join(UNIT, '../../deploy/ansible/roles/numakit/templates/numakit-agent.service.j2'), 'utf8');
  const ours = body(text);
  const theirs = body(j2);
  assert.equal(theirs.length, ours.length);
  const templated = (l: string) => l.replace(/\{\{.*?\}\}/g, 'X');
  for (const [i, line] of ours.entries()) {
    if (line.startsWith('ExecStart=') || line.startsWith('ExecStopPost='))
      assert.equal(
        templated(theirs[i]!),
        line.replace('/usr/bin/env numakit', 'X').replace('/var/lib/numakit', 'X'),
        `line ${i}`,
      );
    else if (line.startsWith('ReadWritePaths=')) assert.equal(templated(theirs[i]!), `${line}X`);
    else assert.equal(theirs[i], line, `line ${i}`);
  }
});
