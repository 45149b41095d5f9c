// The agent's cheap screen (before numa_maps is read) and the migration budget, as tables.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { newBudget, refill, spend } from '../../../src/policy/agent/budget.js';
import { screen } from '../../../src/policy/agent/candidates.js';
import type { PolicyOptions, ProcessBrief } from '../../../src/policy/agent/types.js';
import { MiB, opts } from './build.js';

const base: ProcessBrief = {
  pid: 500,
  comm: 'java',
  cmdline: 'java -jar app.jar',
  rssBytes: 400 * MiB,
  cpu: 1,
  cpusAllowed: [0, 1, 2, 3],
  cpusPermitted: [0, 1, 2, 3],
  agentCpus: null,
};
const ctx = {
  selfPid: 42,
  nowMs: 10_000,
  cooldownUntil: new Map([
    [501, 20_000],
    [502, 5_000],
  ]),
};

const CASES: { name: string; p: Partial<ProcessBrief>; o?: Partial<PolicyOptions>; want: string | null }[] = [
  { name: 'a busy large process is a candidate', p: {}, want: null },
  { name: 'the agent itself', p: { pid: 42 }, want: 'self' },
  { name: 'PID 1', p: { pid: 1 }, want: 'init' },
  {
    name: 'a kernel thread (no RSS, no cmdline)',
    p: { pid: 2, rssBytes: 0, cmdline: '', comm: 'kthreadd' },
    want: 'kernel-thread',
  },
  { name: 'under --min-rss', p: { rssBytes: 31 * MiB }, want: 'small' },
  { name: 'under --min-cpu', p: { cpu: 0.1 }, want: 'idle' },
  { name: '--exclude on comm', p: {}, o: { exclude: [/^java$/] }, want: 'excluded' },
  { name: '--exclude on the command line', p: {}, o: { exclude: [/app\.jar/] }, want: 'excluded' },
  { name: '--include that does not match', p: {}, o: { include: [/postgres/] }, want: 'not-included' },
  { name: '--include that matches', p: {}, o: { include: [/^ja/] }, want: null },
  { name: '--exclude wins over --include', p: {}, o: { include: [/java/], exclude: [/java/] }, want: 'excluded' },
  { name: 'affinity set by the user', p: { cpusAllowed: [2] }, want: 'pinned-cpus' },
  { name: 'affinity set by the user, --override-pins', p: { cpusAllowed: [2] }, o: { overridePins: true }, want: null },
  { name: 'affinity the agent set is not a pin', p: { cpusAllowed: [2, 3], agentCpus: [3, 2] }, want: null },
  { name: 'a cgroup cpuset is not a pin', p: { cpusAllowed: [1, 2], cpusPermitted: [1, 2] }, want: null },
  { name: 'in its cooldown', p: { pid: 501 }, want: 'cooldown' },
  { name: 'cooldown over', p: { pid: 502 }, want: null },
];

describe('agent screen', () => {
  for (const c of CASES) it(c.name, () => assert.equal(screen({ ...base, ...c.p }, ctx, opts(c.o)), c.want));
});

describe('agent migration budget', () => {
  const o = { mbps: 100, burstSeconds: 5 };
  it('starts full (rate x interval) and refills at the rate up to full', () => {
    const b = newBudget(0, o);
    assert.equal(b.tokens, 500e6);
    const spent = spend(b, 400e6, o)!;
    assert.equal(spent.tokens, 100e6);
    assert.equal(refill(spent, 2000, o).tokens, 300e6);
    assert.equal(refill(spent, 60_000, o).tokens, 500e6);
  });
  it('an oversized move passes only a full bucket and leaves a debt that blocks until repaid', () => {
    const debt = spend(newBudget(0, o), 800e6, o)!;
    assert.equal(debt.tokens, -300e6);
    assert.equal(spend(refill(debt, 3000, o), 1, o), null);
    assert.notEqual(spend(refill(debt, 3001, o), 1, o), null);
    assert.equal(spend(refill(debt, 5000, o), 300e6, o), null, 'not full, not enough');
  });
  it('0 MB/s is unlimited', () =>
    assert.equal(spend(newBudget(0, { mbps: 0, burstSeconds: 5 }), 1e12, { mbps: 0, burstSeconds: 5 })?.tokens, 0));
});

describe("the agent's memory: anonymous only", () => {
  it('memoryFromNumaMaps({anonOnly}) leaves out file mappings but keeps anonymous huge pages', async () => {
    const { memoryFromNumaMaps } = await import('../../../src/discover/processes.js');
    const text = [
      '55aa00000000 default file=/usr/bin/node mapped=900 mapmax=3 N0=900 kernelpagesize_kB=4',
      '7f0000000000 default anon=256 dirty=256 N1=256 kernelpagesize_kB=4',
      '7f4000000000 default file=/anon_hugepage\\040(deleted) huge dirty=1 N2=1 kernelpagesize_kB=2048',
    ].join('\n');
    const all = memoryFromNumaMaps(text);
    const anon = memoryFromNumaMaps(text, { anonOnly: true });
    assert.equal(all.kind === 'ok' && Object.keys(all.nodes).join(), '0,1,2');
    assert.equal(anon.kind === 'ok' && Object.keys(anon.nodes).join(), '1,2');
    assert.equal(anon.kind === 'ok' && anon.totalBytes, 256 * 4096 + 2 * 1048576);
  });
});
