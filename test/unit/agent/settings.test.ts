// Flags and the YAML config file: same keys, validated, one-line errors; metrics over HTTP.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import agentCommand, { agentConfig } from '../../../src/cli/commands/agent.js';
import { AGENT_KEYS, parseConfigFile } from '../../../src/cli/commands/agent_settings.js';
import {
  formatDuration,
  formatPercent,
  formatSize,
  parseDuration,
  parseFraction,
  parseSize,
} from '../../../src/cli/values.js';
import { parseMetricsAddr, startMetrics } from '../../../src/agent/metrics.js';
import { DEFAULT_AGENT, maxIntervalOf } from '../../../src/agent/config.js';
import { proc } from './build.js';
import { openRoot } from '../../../src/sysfs/root.js';
import { TEST_DIR } from '../../helpers/cli.js';

describe('agent settings', () => {
  it('flags: durations, sizes, fractions, choices, repeatable regexes', async () => {
    const c = await agentConfig([
      '--interval',
      '500ms',
      '--min-rss',
      '1G',
      '--min-gain',
      '5%',
      '--tune',
      'pages',
      '--exclude',
      '^sshd$',
      '--exclude',
      'backup',
      '--override-pins',
      '--max-migrate-mbps',
      '0',
      '--cooldown',
      '2m',
    ]);
    assert.deepEqual(
      [
        c.intervalMs,
        c.minRssBytes,
        c.minGain,
        c.tune,
        c.exclude.map(String),
        c.overridePins,
        c.maxMigrateMbps,
        c.cooldownMs,
      ],
      [500, 1024 ** 3, 0.05, 'pages', ['/^sshd$/', '/backup/'], true, 0, 120_000],
    );
  });

  it('agent v2 flags: --unit, --granularity, --promote, --max-migrate-cpu; bad values named', async () => {
    const c = await agentConfig([
      '--unit',
      'cgroup',
      '--granularity',
      'process',
      '--promote',
      '--max-migrate-cpu',
      '25%',
    ]);
    assert.deepEqual([c.unit, c.granularity, c.promote, c.maxMigrateCpu], ['cgroup', 'process', true, 0.25]);
    assert.deepEqual(
      [DEFAULT_AGENT.unit, DEFAULT_AGENT.granularity, DEFAULT_AGENT.promote, DEFAULT_AGENT.maxMigrateCpu],
      ['process', 'threads', false, 'auto'],
    );
    assert.equal((await agentConfig(['--max-migrate-cpu', '0.5'])).maxMigrateCpu, 0.5);
    assert.equal((await agentConfig(['--max-migrate-cpu', '50%', '--max-migrate-cpu', 'auto'])).maxMigrateCpu, 'auto');
    await assert.rejects(agentConfig(['--unit', 'pod']), /agent: --unit pod: expected one of process, cgroup/);
    await assert.rejects(
      agentConfig(['--granularity', 'thread']),
      /agent: --granularity thread: expected one of threads, process/,
    );
    await assert.rejects(agentConfig(['--max-migrate-cpu', '0']), /agent: --max-migrate-cpu '0': must be more than 0/);
    await assert.rejects(
      agentConfig(['--max-migrate-cpu', '150%']),
      /agent: --max-migrate-cpu '150%': expected a fraction/,
    );
  });

  it("--max-interval: 3 x --interval unless given (within a timer's range), never under --interval", async () => {
    assert.equal(maxIntervalOf(await agentConfig([])), 15_000);
    assert.equal(maxIntervalOf(await agentConfig(['--interval', '2s'])), 6_000);
    assert.equal(maxIntervalOf(await agentConfig(['--interval', '2s', '--max-interval', '1m'])), 60_000);
    assert.equal(maxIntervalOf(await agentConfig(['--interval', '2s', '--max-interval', '2s'])), 2_000);
    assert.equal(maxIntervalOf(await agentConfig(['--interval', '576h'])), 576 * 3600_000);
    await assert.rejects(
      agentConfig(['--interval', '10s', '--max-interval', '5s']),
      /agent: --max-interval 5s is shorter than --interval 10s/,
    );
  });

  it('the YAML file has the same keys; flags win over it', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'numakit-agent-cfg-'));
    try {
      const file = join(dir, 'agent.yaml');
      writeFileSync(
        file,
        'interval: 2s\nmin-rss: 64M\nmin-cpu: 0.5\ninclude: [java, postgres]\nstrategy: consolidate\nnuma-balancing: keep\nmetrics: 10464\n',
      );
      const c = await agentConfig(['--config', file, '--interval', '10s']);
      assert.deepEqual(
        [c.intervalMs, c.minRssBytes, c.minCpu, c.include.map(String), c.strategy, c.numaBalancing, c.metrics],
        [10_000, 64 * 1024 ** 2, 0.5, ['/java/', '/postgres/'], 'consolidate', 'keep', '10464'],
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  const BAD: [string, RegExp][] = [
    ['intervall: 5s\n', /^a\.yaml: 'intervall': unknown setting \(known: min-rss, min-cpu, [^)]*\binterval\b/],
    ['tune: sideways\n', /^a\.yaml: 'tune' 'sideways': expected threads or pages or both$/],
    ['min-rss: lots\n', /^a\.yaml: 'min-rss' 'lots': expected a size/],
    ['override-pins: 1\n', /^a\.yaml: 'override-pins': expected boolean/],
    ['include: [1, 2]\n', /^a\.yaml: 'include(\.0)?': /],
    ['- a\n- b\n', /^a\.yaml: expected a mapping of settings/],
    ['interval: [\n', /^a\.yaml: not valid YAML/],
    ['exclude: "("\n', /^a\.yaml: 'exclude' '\(': not a regular expression/],
  ];
  for (const [text, want] of BAD) {
    it(`config error is one line: ${JSON.stringify(text)}`, async () => {
      await assert.rejects(
        parseConfigFile(text, 'a.yaml'),
        (e: Error) => want.test(e.message) && !e.message.includes('\n'),
      );
    });
  }

  it('flag errors are usage errors naming the flag', async () => {
    await assert.rejects(
      agentConfig(['--strategy', 'pack']),
      /agent: --strategy pack: expected one of balance, consolidate/,
    );
    await assert.rejects(agentConfig(['--interval', '0']), /--interval '0': must be more than 0/);
    await assert.rejects(agentConfig(['stray']), /unexpected argument 'stray'/);
  });

  it('defaults', async () => assert.deepEqual(await agentConfig([]), DEFAULT_AGENT));

  it('each default --help shows is the default: given as the flag, it changes nothing', async () => {
    let shown = 0;
    for (const [key, spec] of Object.entries(AGENT_KEYS)) {
      // "(default 32M;", "(default 0.2 = ...", "; default balance", "(default process);"
      const m = /default:? ([^\s;,)]+)/.exec(spec.help);
      if (spec.type === 'boolean' || m === null || m[1] === '3') continue; // max-interval: "3 x --interval"
      shown++;
      assert.deepEqual(await agentConfig([`--${key}`, m[1]!]), DEFAULT_AGENT, `--${key} ${m[1]}`);
    }
    assert.ok(shown >= 14, `only ${shown} defaults found in --help`);
  });

  it('the config file takes exactly the flags (but --config), and each key with a few values lists them', () => {
    const flags = Object.keys(agentCommand.options).filter((k) => k !== 'config');
    assert.deepEqual(Object.keys(AGENT_KEYS), flags);
    for (const key of ['tune', 'strategy', 'unit', 'granularity', 'numa-balancing', 'log-format'] as const)
      assert.ok(AGENT_KEYS[key].choices.length >= 2, key);
  });
});

describe('flag values shown in --help read back', () => {
  const cases: [string, string][] = [
    [formatDuration(30_000), '30s'],
    [formatDuration(500), '500ms'],
    [formatDuration(120_000), '2m'],
    [formatDuration(1500), '1500ms'],
    [formatSize(32 * 2 ** 20), '32M'],
    [formatSize(2 ** 30), '1G'],
    [formatSize(1536), '1536'],
    [formatSize(3 * 1024), '3k'],
    [formatPercent(0.1), '10%'],
    [formatPercent(0.5), '50%'],
    [formatPercent(0.125), '12.5%'],
  ];
  for (const [got, want] of cases) it(want, () => assert.equal(got, want));
  it('parse(format(x)) is x', () => {
    for (const ms of [1, 500, 1000, 30_000, 90_000, 3_600_000])
      assert.equal(parseDuration(formatDuration(ms), 'x'), ms);
    for (const b of [1, 1536, 32 * 2 ** 20, 5 * 2 ** 40]) assert.equal(parseSize(formatSize(b), 'x'), b);
    for (const f of [0, 0.1, 0.5, 0.125, 1]) assert.equal(parseFraction(formatPercent(f), 'x'), f);
  });
});

describe('agent metrics', () => {
  it('ADDR: port alone is 127.0.0.1; host:port; bad ones are usage errors', () => {
    assert.deepEqual(parseMetricsAddr('10464'), { host: '127.0.0.1', port: 10464 });
    assert.deepEqual(parseMetricsAddr(':10464'), { host: '127.0.0.1', port: 10464 });
    assert.deepEqual(parseMetricsAddr('0.0.0.0:80'), { host: '0.0.0.0', port: 80 });
    assert.deepEqual(parseMetricsAddr('[::1]:10464'), { host: '::1', port: 10464 });
    assert.throws(() => parseMetricsAddr('99999'), /--metrics 99999/);
  });

  it('a host other machines reach needs metrics-token-file or metrics-insecure-public', async () => {
    await assert.rejects(
      startMetrics('0.0.0.0:0', { root: openRoot(join(TEST_DIR, 'fixtures/stat/four-node')) }),
      /agent --metrics: 0\.0\.0\.0 is reachable from other machines/,
    );
    const cfg = await agentConfig([
      '--metrics',
      '0.0.0.0:10464',
      '--metrics-insecure-public',
      '--metrics-token-file',
      '/x',
    ]);
    assert.equal(cfg.metricsInsecurePublic, true);
    assert.equal(cfg.metricsTokenFile, '/x');
  });

  it('serves locality, moves, decisions, node memory and counters, its own CPU at /metrics', async () => {
    const m = await startMetrics('127.0.0.1:0', { root: openRoot(join(TEST_DIR, 'fixtures/stat/four-node')) });
    try {
      m.decision('moved');
      m.decision('moved');
      m.moved(400 * 1048576, 102400, 2);
      m.putBackFailed(2);
      m.moved(64 * 1048576, 16384, 3, '/lab.slice/app.service');
      m.locality([
        proc({ pid: 77, comm: 'spin', mem: { 0: 300, 1: 100 }, cpu: { 0: 1 }, cpusPermitted: [0, 1] }),
        {
          ...proc({ pid: 88, comm: 'app', mem: { 1: 100 }, cpu: { 1: 1 }, cpusPermitted: [0, 1] }),
          unit: { cgroup: '/lab.slice/app.service', pids: [88, 89] },
        },
      ]);
      m.machine({
        nodes: [{ id: 1, cpus: [1], freeBytes: 12345, idleCpus: 1, distances: {} }],
        numastat: new Map([[1, { numa_hit: 5, numa_miss: 2 }]]),
      });
      const text = await (await fetch(`http://${m.address}/metrics`)).text();
      for (const line of [
        'numakit_agent_process_locality{pid="77",comm="spin"} 0.75',
        'numakit_agent_decisions_total{outcome="moved"} 2',
        'numakit_agent_cgroup_locality{cgroup="/lab.slice/app.service"} 1',
        'numakit_agent_cgroup_moved_bytes_total{cgroup="/lab.slice/app.service"} 67108864',
        'numakit_agent_moved_bytes_total 486539264',
        'numakit_agent_migrations_total 2',
        'numakit_agent_moved_pages_total 118784',
        'numakit_agent_thread_affinity_changes_total 5',
        'numakit_agent_restore_failures_total 2',
        'numakit_node_free_bytes{node="1"} 12345',
        'numakit_node_numastat_pages_total{node="1",counter="numa_miss"} 2',
        'node_memory_numa_MemFree{node="3"}',
        'numakit_process_remote_bytes{pid="1403",name="hugeapp"}',
      ])
        assert.ok(text.includes(line), `no '${line}' in\n${text}`);
      assert.match(text, /^numakit_agent_cpu_seconds_total \d+(\.\d+)?$/m);
      assert.match(text, /^# TYPE numakit_node_numastat_pages_total counter$/m);
      assert.equal((await fetch(`http://${m.address}/other`)).status, 404);
      assert.equal((await fetch(`http://${m.address}/metrics`, { method: 'POST' })).status, 405);
      // The dashboard of numakit serve, with the agent's recent decisions.
      m.logged('2026-01-01T00:00:00.000Z moved pid 77 (spin): locality 75% -> 100%');
      assert.equal((await fetch(`http://${m.address}/`)).status, 200);
      const live = (await (await fetch(`http://${m.address}/api/live`)).json()) as {
        agent: { pid: number; recent: { line: string }[] };
      };
      assert.equal(live.agent.pid, process.pid);
      assert.match(live.agent.recent.at(-1)!.line, /moved pid 77/);
    } finally {
      await m.close();
    }
  });
});
