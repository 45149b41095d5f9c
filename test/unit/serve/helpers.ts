// Shared by the serve tests: a writable copy of a fixture machine, scrapes as text, and a
// numakit serve child process on an ephemeral loopback port.
import assert from 'node:assert/strict';
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { appendFileSync, cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { renderExposition } from '../../../src/serve/exposition.js';
import { scrapeFamilies } from '../../../src/serve/metrics.js';
import type { Scraper, ScrapeOptions } from '../../../src/serve/scrape.js';
import { openRoot, type SysRoot } from '../../../src/sysfs/root.js';
import { REPO_DIR, TEST_DIR } from '../../helpers/cli.js';

export const FOUR_NODE = join(TEST_DIR, 'fixtures/stat/four-node');

/** A copy of a fixture tree under os.tmpdir(); remove() deletes it. */
export function copyFixture(src = FOUR_NODE): { dir: string; root: SysRoot; remove: () => void } {
  const base = mkdtempSync(join(tmpdir(), 'numakit-serve-'));
  const dir = join(base, 'machine');
  cpSync(src, dir, { recursive: true });
  return { dir, root: openRoot(dir), remove: () => rmSync(base, { recursive: true, force: true }) };
}

const NODE = 'sys/devices/system/node';

/** /proc/stat with every CPU at `busy` busy and `idle` idle ticks. */
export function procStat(busy: number, idle: number): string {
  return `cpu  0 0 0 0\n${[0, 1, 2, 3, 4, 5, 6, 7].map((c) => `cpu${c} ${busy} 0 0 ${idle} 0 0 0 0 0 0`).join('\n')}\n`;
}

/**
 * The four-node fixture made closer to a real kernel's tree for serve: SLIT distances, a
 * /proc/stat, HugetlbPages in hugeapp's status (1 GiB + 6 MiB of hugetlbfs pages), and no
 * resident pages for the kernel thread and the zombie (the fixture's stat lines share one
 * template with rss 1004).
 */
export function realisticFourNode(): ReturnType<typeof copyFixture> {
  const fx = copyFixture();
  for (let n = 0; n < 4; n++)
    writeFileSync(
      join(fx.dir, NODE, `node${n}/distance`),
      `${[0, 1, 2, 3].map((m) => (m === n ? 10 : m + n === 3 ? 32 : 20 + m + n)).join(' ')}\n`,
    );
  writeFileSync(join(fx.dir, 'proc/stat'), procStat(100, 900));
  appendFileSync(join(fx.dir, 'proc/1403/status'), 'HugetlbPages:\t 1054720 kB\n');
  for (const pid of [1100, 1504]) {
    const f = join(fx.dir, `proc/${pid}/stat`);
    const text = readFileSync(f, 'utf8');
    const cut = text.lastIndexOf(')') + 2;
    const fields = text.slice(cut).split(' ');
    fields[21] = '0';
    writeFileSync(f, text.slice(0, cut) + fields.join(' '));
  }
  return fx;
}

export const OPTS: ScrapeOptions = { top: 10, doctorIntervalMs: 300_000, timeoutMs: 8000 };

export function scrapeText(s: Scraper, nodeExporterNames = true): string {
  return renderExposition(scrapeFamilies(s.scrape(), { nodeExporterNames }));
}

/** Value of one series line ("name{labels}") in exposition text, or undefined. */
export function value(text: string, series: string): number | undefined {
  const line = text.split('\n').find((l) => l.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
}

/** "name{labels}" -> value and name -> type, for the series whose name starts with `prefix`. */
export function parseExposition(
  text: string,
  prefix: string,
): { values: Map<string, number>; types: Map<string, string> } {
  const values = new Map<string, number>();
  const types = new Map<string, string>();
  for (const l of text.split('\n')) {
    const t = /^# TYPE (\S+) (\S+)$/.exec(l);
    if (t && t[1]!.startsWith(prefix)) types.set(t[1]!, t[2]!);
    if (l.startsWith(prefix)) {
      const i = l.lastIndexOf(' ');
      values.set(l.slice(0, i), Number(l.slice(i + 1)));
    }
  }
  return { values, types };
}

/**
 * numakit's node_memory_numa_* (scraped before and after node_exporter's) against node_exporter
 * --collector.meminfo_numa: the same series, types and labels; counters between our two reads,
 * memory within what moves on a busy machine.
 */
export function assertSameAsNodeExporter(before: string, nodeExporter: string, after: string): void {
  const a = parseExposition(before, 'node_memory_numa_');
  const ne = parseExposition(nodeExporter, 'node_memory_numa_');
  const b = parseExposition(after, 'node_memory_numa_');
  assert.ok(ne.values.size > 20, `node_exporter gave ${ne.values.size} series`);
  assert.deepEqual([...a.values.keys()].sort(), [...ne.values.keys()].sort());
  assert.deepEqual(new Map([...a.types].sort()), new Map([...ne.types].sort()));
  for (const [k, v] of ne.values) {
    const lo = Math.min(a.values.get(k)!, b.values.get(k)!);
    const hi = Math.max(a.values.get(k)!, b.values.get(k)!);
    const slack = ne.types.get(k.replace(/\{.*/, '')) === 'counter' ? 0 : Math.max(32 * 2 ** 20, hi * 0.02);
    assert.ok(v >= lo - slack && v <= hi + slack, `${k}: node_exporter ${v}, numakit ${lo}..${hi}`);
  }
}

export interface Child {
  readonly proc: ChildProcessWithoutNullStreams;
  readonly base: string;
  stderr(): string;
  stop(): Promise<number | null>;
}

/** Starts `numakit serve` (from src, through tsx) and waits for its start-up line. */
export async function startServe(args: string[], globals: string[] = []): Promise<Child> {
  const proc = spawn(
    process.execPath,
    ['--import', 'tsx', join(REPO_DIR, 'src/cli/bin.ts'), ...globals, 'serve', '--listen', '127.0.0.1:0', ...args],
    { cwd: REPO_DIR },
  );
  let out = '';
  let err = '';
  proc.stderr.on('data', (d: Buffer) => (err += d));
  const base = await new Promise<string>((resolve, reject) => {
    const t = setTimeout(() => reject(new Error(`serve did not start in 30 s: ${err}`)), 30_000);
    proc.stdout.on('data', (d: Buffer) => {
      out += d;
      const m = /(https?:\/\/127\.0\.0\.1:\d+)\//.exec(out);
      if (m) {
        clearTimeout(t);
        resolve(m[1]!);
      }
    });
    proc.once('exit', (code) => reject(new Error(`serve exited ${code}: ${err}`)));
  });
  return {
    proc,
    base,
    stderr: () => err,
    stop: () =>
      new Promise((resolve) => {
        if (proc.exitCode !== null) return resolve(proc.exitCode);
        proc.once('exit', (code) => resolve(code));
        proc.kill('SIGTERM');
      }),
  };
}
