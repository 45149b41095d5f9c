// What doctor reads beyond each process's stat is what its findings use: no core's files (its
// rules look at packages and nodes), and the findings are those of the full topology; no command
// line; a sampled process's cgroup only where its affinity leaves some online CPU out.
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { gatherDoctorInput } from '../../../src/discover/doctor_input.js';
import { discoverForLayout } from '../../../src/discover/topology.js';
import { formatCpuList } from '../../../src/model/cpuset.js';
import { doctorProfile } from '../../../src/policy/doctor/profiles.js';
import { runDoctor } from '../../../src/policy/doctor/rules.js';
import { profileByName } from '../../../src/policy/knowledge/profiles.js';
import { wholeInOneRead } from '../../../src/sysfs/read.js';
import { openRoot } from '../../../src/sysfs/root.js';
import type { SysRoot } from '../../../src/sysfs/root.js';
import { TEST, writeScaleCapture } from '../../fixtures/scale_capture.js';
import { withFileReads } from '../../helpers/fs_calls.js';

const base = mkdtempSync(join(tmpdir(), 'numakit-scale-doctor-reads-'));
writeScaleCapture(base, TEST);
after(() => rmSync(base, { recursive: true, force: true }));

function counting(pattern: RegExp): { root: SysRoot; reads: string[] } {
  const reads: string[] = [];
  const root = {
    ...openRoot(base),
    onAccess: (kind: string, rel: string) => {
      if (kind === 'file' && pattern.test(rel)) reads.push(rel);
    },
  };
  return { root, reads };
}

async function findings(root: SysRoot, topology?: ReturnType<typeof discoverForLayout>) {
  const input = await gatherDoctorInput(root, topology === undefined ? {} : { topology });
  return runDoctor(input, doctorProfile(profileByName('general'), input));
}

test('doctor reads no core file of any CPU, and finds what it finds with them', async () => {
  const { root, reads } = counting(
    /^sys\/devices\/system\/cpu\/cpu\d+\/topology\/(thread_siblings|core_id|cluster_id)/,
  );
  const without = await findings(root);
  assert.deepEqual(reads, []);
  const full = openRoot(base);
  const withCores = discoverForLayout(full);
  assert.ok(
    withCores.cpus.some((c) => c.core !== null && c.siblings.length === 2),
    'the capture has cores',
  );
  assert.deepEqual(without, await findings(full, withCores));
});

test('doctor reads no command line: no rule names a process by it', async () => {
  const { root, reads } = counting(/^proc\/\d+\/cmdline$/);
  const input = await gatherDoctorInput(root);
  assert.ok(input.processes.ok && input.processes.value.length > 0, 'processes sampled');
  assert.deepEqual(reads, []);
});

test('doctor reads the cgroup of a sampled process its affinity restricts, and of no other', async () => {
  const first = await gatherDoctorInput(openRoot(base));
  assert.ok(first.processes.ok);
  assert.ok(first.processes.value.every((p) => p.cpusetCgroup === null));
  const pid = first.processes.value[0]!.pid;
  const node0 = formatCpuList(discoverForLayout(openRoot(base)).nodes[0]!.cpus);
  const status = join(base, `proc/${pid}/status`);
  const before = readFileSync(status, 'utf8');
  writeFileSync(status, before.replace(/^Cpus_allowed_list:.*$/m, `Cpus_allowed_list:\t${node0}`));
  writeFileSync(join(base, `proc/${pid}/cgroup`), '0::/db.slice\n');
  mkdirSync(join(base, 'sys/fs/cgroup/db.slice'), { recursive: true });
  writeFileSync(join(base, 'sys/fs/cgroup/db.slice/cpuset.cpus'), `${node0}\n`);
  try {
    const { root, reads } = counting(/^proc\/\d+\/(cgroup|cpuset)$/);
    const input = await gatherDoctorInput(root);
    assert.ok(input.processes.ok);
    assert.deepEqual(new Set(reads.map((r) => r.split('/')[1])), new Set([String(pid)]));
    for (const p of input.processes.value) assert.equal(p.cpusetCgroup, p.pid === pid ? '/db.slice' : null);
  } finally {
    writeFileSync(status, before);
    rmSync(join(base, `proc/${pid}/cgroup`));
    rmSync(join(base, 'sys/fs/cgroup'), { recursive: true });
  }
});

test('doctor reads each small sysfs and one-record procfs file it opens once: no read that only finds EOF', async () => {
  const { value, reads } = withFileReads(() => gatherDoctorInput(openRoot(base)));
  await value;
  const small = [...reads].filter(([path]) => {
    const rel = path.startsWith(`${base}/`) ? path.slice(base.length + 1) : null;
    return rel !== null && wholeInOneRead(rel) && statSync(path).size < 4096;
  });
  // The governors, IRQ affinities, RPS queues, node files and each process's stat and status.
  assert.ok(small.length > 200, `${small.length} such files`);
  assert.deepEqual(
    small.filter(([, n]) => n.some((reads) => reads !== 1)),
    [],
  );
  // numa_maps (a seq_file of many records on a running system) is still read to its end.
  const maps = [...reads].filter(([path]) => /\/proc\/\d+\/numa_maps$/.test(path));
  assert.ok(maps.length > 0 && maps.every(([, n]) => n.every((reads) => reads >= 2)));
});
