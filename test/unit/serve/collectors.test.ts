// The exporter on a fixture machine: node_exporter's names and values, numakit's series, the
// top-K processes, and gaps (a file that cannot be parsed, a process that exits mid-scrape, a
// node that goes offline, a scrape past its deadline) that leave the scrape answering.
import assert from 'node:assert/strict';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { Scraper } from '../../../src/serve/scrape.js';
import { meminfoMetricName } from '../../../src/serve/collect/node_memory.js';
import { TEST_DIR } from '../../helpers/cli.js';
import { copyFixture, OPTS, procStat, realisticFourNode, scrapeText, value } from './helpers.js';

const NODE = 'sys/devices/system/node';

describe('serve collectors', () => {
  let fx: ReturnType<typeof copyFixture>;
  before(() => (fx = realisticFourNode()));
  after(() => fx.remove());

  it('node_exporter names: meminfo fields in bytes, HugePages_* as counts, numastat counters _total in pages', () => {
    const t = scrapeText(new Scraper(fx.root, OPTS));
    assert.equal(value(t, 'node_memory_numa_MemTotal{node="1"}'), 16777216 * 1024);
    assert.equal(value(t, 'node_memory_numa_Active_anon{node="1"}'), (1568 + 4096) * 1024);
    assert.equal(value(t, 'node_memory_numa_numa_miss_total{node="1"}'), 34567);
    assert.match(t, /^# TYPE node_memory_numa_numa_hit_total counter$/m);
    assert.match(t, /^# HELP node_memory_numa_Active_anon Memory information field Active_anon\.$/m);
    assert.match(t, /^# TYPE node_memory_numa_MemFree gauge$/m);
    assert.ok(value(t, 'node_memory_numa_HugePages_Total{node="0"}')! < 1000, 'HugePages_Total is a page count');
    assert.equal(meminfoMetricName('Inactive(file)'), 'node_memory_numa_Inactive_file');
  });

  it('--no-node-exporter-names drops node_memory_numa_* and keeps numakit_*', () => {
    const t = scrapeText(new Scraper(fx.root, OPTS), false);
    assert.doesNotMatch(t, /node_memory_numa_/);
    assert.match(t, /^numakit_node_info\{node="3",/m);
  });

  it('distances as an info metric, node info, huge pages per node and size', () => {
    const t = scrapeText(new Scraper(fx.root, OPTS));
    assert.match(t, /^numakit_node_distance_info\{node="0",peer="1",distance="21"\} 1$/m);
    assert.match(t, /^numakit_node_distance_info\{node="0",peer="3",distance="32"\} 1$/m);
    assert.equal(t.match(/^numakit_node_distance_info\{/gm)?.length, 16);
    assert.match(t, /^numakit_node_hugepages\{node="1",size="1048576kB",state="total"\} \d+$/m);
    const pages = value(t, 'numakit_node_hugepages{node="1",size="2048kB",state="total"}')!;
    assert.equal(value(t, 'numakit_node_hugepages_bytes{node="1",size="2048kB",state="total"}'), pages * 2048 * 1024);
  });

  it('top-K by remote memory, name and pid labels only; largest first, stops once the top K are certain', () => {
    const one = new Scraper(fx.root, { ...OPTS, top: 1 });
    const t = scrapeText(one);
    assert.deepEqual(t.match(/^numakit_process_remote_bytes\{.*$/gm), [
      `numakit_process_remote_bytes{pid="1403",name="hugeapp"} ${value(t, 'numakit_process_remote_bytes{pid="1403",name="hugeapp"}')}`,
    ]);
    assert.ok(value(t, 'numakit_process_remote_bytes{pid="1403",name="hugeapp"}')! > 2 ** 30);
    assert.equal(value(t, 'numakit_process_locality{pid="1403",name="hugeapp"}'), 0);
    // hugeapp (1 GiB hugetlb) then java (900 MB): after both, nothing smaller can beat hugeapp.
    assert.ok(value(t, 'numakit_processes_numa_maps_read')! < value(t, 'numakit_processes_scanned')!);
    const all = scrapeText(new Scraper(fx.root, OPTS));
    assert.equal(
      all.match(/^numakit_process_memory_bytes\{/gm)?.length,
      3,
      'postgres, java, hugeapp (kernel thread and zombie have no memory)',
    );
    assert.doesNotMatch(all, /cmdline|\/usr\//);
    assert.equal(new Scraper(fx.root, { ...OPTS, top: 0 }).scrape().processes.top.length, 0);
  });

  it("a multi-threaded process's threads are read again only when it used CPU since the last scrape", () => {
    const f2 = realisticFourNode();
    try {
      const statPath = join(f2.dir, 'proc/1201/stat');
      const edit = (i: number, v: string) => {
        const text = readFileSync(statPath, 'utf8');
        const cut = text.lastIndexOf(')') + 2;
        const f = text.slice(cut).split(' ');
        f[i] = v;
        writeFileSync(statPath, text.slice(0, cut) + f.join(' '));
      };
      edit(17, '2'); // num_threads: postgres has two tasks
      const s = new Scraper(f2.root, OPTS);
      const names = () => s.scrape().processes.top.map((p) => p.name);
      assert.ok(names().includes('postgres'));
      rmSync(join(f2.dir, 'proc/1201/task'), { recursive: true });
      assert.ok(names().includes('postgres'), 'idle since the last scrape: its threads were not read');
      edit(11, '999'); // utime moved: it ran, so its threads are read, and they are gone
      assert.ok(!names().includes('postgres'));
    } finally {
      f2.remove();
    }
  });

  it('a process listed but gone when read is counted as vanished, not a gap (nothing of it is missing); the scrape answers', () => {
    const t = scrapeText(new Scraper(fx.root, OPTS));
    assert.ok(value(t, 'numakit_processes_vanished')! >= 1, t);
    assert.equal(value(t, 'numakit_scrape_gaps{collector="processes",reason="vanished"}'), undefined, t);
    assert.equal(value(t, 'numakit_scrape_partial'), 0);
  });

  it("an unparseable meminfo costs only that node's fields, counted as a gap", () => {
    const p = join(fx.dir, NODE, 'node2/meminfo');
    const saved = readFileSync(p, 'utf8');
    try {
      writeFileSync(p, 'Node 2 MemTotal: lots kB\n');
      const t = scrapeText(new Scraper(fx.root, OPTS));
      assert.equal(value(t, 'node_memory_numa_MemTotal{node="2"}'), undefined);
      assert.ok(value(t, 'node_memory_numa_MemTotal{node="1"}')! > 0);
      assert.equal(value(t, 'numakit_scrape_gaps{collector="node_memory",reason="unparseable"}'), 1);
      assert.equal(value(t, 'numakit_scrape_collector_success{collector="node_memory"}'), 0);
    } finally {
      writeFileSync(p, saved);
    }
  });

  it('a node that goes offline between scrapes drops out of the next one', () => {
    const f2 = copyFixture();
    try {
      const s = new Scraper(f2.root, OPTS);
      assert.ok(value(scrapeText(s), 'node_memory_numa_MemFree{node="3"}')! > 0);
      rmSync(join(f2.dir, NODE, 'node3'), { recursive: true });
      const t = scrapeText(s);
      assert.equal(value(t, 'node_memory_numa_MemFree{node="3"}'), undefined);
      assert.ok(value(t, 'node_memory_numa_MemFree{node="2"}')! > 0);
    } finally {
      f2.remove();
    }
  });

  it('a scrape past its deadline returns what it read, with numakit_scrape_partial 1', () => {
    let now = 0;
    const s = new Scraper(fx.root, { ...OPTS, timeoutMs: 100 }, () => (now += 30));
    const sc = s.scrape();
    assert.equal(sc.partial, true);
    assert.ok(sc.memory.length === 4, 'node memory came first and is there');
    const t = scrapeText(new Scraper(fx.root, { ...OPTS, timeoutMs: 100 }, () => (now += 30)));
    assert.equal(value(t, 'numakit_scrape_partial'), 1);
    assert.match(t, /^numakit_scrape_gaps\{collector="[a-z_]+",reason="deadline"\} \d+$/m);
  });

  it('CPU counters from proc/stat; busy/idle gauges once there is a reading 1 s older', () => {
    writeFileSync(join(fx.dir, 'proc/stat'), procStat(100, 900));
    let now = 0;
    const s = new Scraper(fx.root, OPTS, () => now);
    const first = scrapeText(s);
    assert.equal(value(first, 'numakit_node_cpu_seconds_total{node="0",mode="busy"}'), 2);
    assert.equal(value(first, 'numakit_node_cpu_seconds_total{node="0",mode="idle"}'), 18);
    assert.equal(value(first, 'numakit_node_cpus_busy{node="0"}'), undefined);
    now = 2000;
    writeFileSync(join(fx.dir, 'proc/stat'), procStat(300, 900));
    const t = scrapeText(s);
    assert.equal(value(t, 'numakit_node_cpus_online{node="0"}'), 2);
    assert.ok(Math.abs(value(t, 'numakit_node_cpus_busy{node="0"}')! - 2) < 1e-9, t);
  });
});

describe('serve: memory tiering per node', () => {
  it('pages promoted into and demoted out of each node (nodeN/vmstat), and none where the kernel has no such counters', () => {
    const fx = copyFixture(join(TEST_DIR, 'fixtures/topo/tier-hmat-612'));
    try {
      const t = scrapeText(new Scraper(fx.root, OPTS));
      assert.match(t, /^# TYPE numakit_node_pages_promoted_total counter$/m);
      assert.equal(value(t, 'numakit_node_pages_promoted_total{node="0"}'), 1200);
      assert.equal(value(t, 'numakit_node_pages_promoted_total{node="1"}'), 2400);
      assert.equal(value(t, 'numakit_node_pages_demoted_total{node="1"}'), 300);
      assert.equal(value(t, 'numakit_node_pages_demoted_total{node="2"}'), 0);
      assert.equal(value(t, 'numakit_vmstat_pgpromote_success_total'), 3600);
    } finally {
      fx.remove();
    }
    const plain = copyFixture();
    try {
      assert.doesNotMatch(scrapeText(new Scraper(plain.root, OPTS)), /numakit_node_pages_(promoted|demoted)/);
    } finally {
      plain.remove();
    }
  });
});

describe('serve: per-cgroup series', () => {
  it('the cgroups of the top processes by remote memory, at most --top of them, with kubepods labels and memory.numa_stat per node', async () => {
    const { writeCgroupMachine, POD, CONTAINER } = await import('../../fixtures/cgroup/machine.js');
    const { mkdtempSync } = await import('node:fs');
    const { tmpdir } = await import('node:os');
    const { openRoot } = await import('../../../src/sysfs/root.js');
    const dir = mkdtempSync(join(tmpdir(), 'numakit-serve-cg-'));
    try {
      writeCgroupMachine(join(dir, 'm'), 2);
      const t = scrapeText(new Scraper(openRoot(join(dir, 'm')), { ...OPTS, top: 2 }));
      const pod = `cgroup="/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod${POD.replace(/-/g, '_')}.slice/cri-containerd-${CONTAINER}.scope",pod="${POD}",container="${CONTAINER.slice(0, 12)}",qos="burstable"`;
      assert.ok(value(t, `numakit_cgroup_remote_bytes{${pod}}`)! > 100 * 2 ** 20, t);
      assert.equal(value(t, `numakit_cgroup_memory_bytes{${pod},node="1"}`), 120 * 2 ** 20);
      const cgroups = new Set([...t.matchAll(/^numakit_cgroup_remote_bytes\{cgroup="([^"]+)"/gm)].map((m) => m[1]));
      assert.deepEqual(cgroups.size, 2, 'at most --top cgroups');
      assert.ok(cgroups.has('/system.slice/spread-app.service'));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
