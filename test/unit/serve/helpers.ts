// Shared by the serve tests: a writable copy of a fixture machine, scrapes as text, and a
// numakit serve child process on an ephemeral loopback port.
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { appendFileSync, cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { renderExposition } from '../../../src/serve/exposition.js';
import { scrapeFamilies } from '../../../src/serve/metrics.js';
import { Scraper, type ScrapeOptions } from '../../../src/serve/scrape.js';
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
  for (let n = 0; n < 4; n++) writeFileSync(join(fx.dir, NODE, `node${n}/distance`), `${[0, 1, 2, 3].map((m) => (m === n ? 10 : m + n === 3 ? 32 : 20 + m + n)).join(' ')}\n`);
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

export interface Child {
  readonly proc: ChildProcessWithoutNullStreams;
  readonly base: string;
  stderr(): string;
  stop(): Promise<number | null>;
}

/** Starts `numakit serve` (from src, through tsx) and waits for its start-up line. */
export async function startServe(args: string[], globals: string[] = []): Promise<Child> {
  const proc = spawn(process.execPath, ['--import', 'tsx', join(REPO_DIR, 'src/cli/bin.ts'), ...globals, 'serve', '--listen', '127.0.0.1:0', ...args], { cwd: REPO_DIR });
  let out = '';
  let err = '';
  proc.stderr.on('data', (d: Buffer) => (err += d));
  const base = await new Promise<string>((resolve, reject) => {
    const t = setTimeout(() => reject(new Error(`serve did not start in 30 s: ${err}`)), 30_000);
    proc.stdout.on('data', (d: Buffer) => {
      out += d;
      const m = /(http:\/\/127\.0\.0\.1:\d+)\//.exec(out);
      if (m) {
        clearTimeout(t);
        resolve(m[1]!);
      }
    });
    proc.once('exit', (code) => reject(new Error(`serve exited ${code}: ${err}`)));
  });
  return {
    proc, base, stderr: () => err,
    stop: () => new Promise((resolve) => {
      if (proc.exitCode !== null) return resolve(proc.exitCode);
      proc.once('exit', (code) => resolve(code));
      proc.kill('SIGTERM');
    }),
  };
}
