// numakit migrate PID FROM-NODES TO-NODES: numactl's migratepages. By default one
// migrate_pages(2) call moves every page of PID on FROM-NODES to TO-NODES (the kernel maps the
// sets as node_remap does); --paced (or --rate) uses the agent's mover instead: the anonymous
// pages in batches of move_pages(2) within a MB/s budget, progress on a terminal, stoppable by
// SIGINT/SIGTERM with what moved reported. --threads moves the threads bound to FROM-NODES'
// CPUs along.
import { NumakitError, UsageError } from '../../model/errors.js';
import { parseNodeSpec, SpecError } from '../../policy/nodespec.js';
import { bytesPerNode, leftBytes, renderMigrate, renderMigrateJson, type MigrateResult } from '../../render/migrate.js';
import { readNumaMaps } from '../../sysfs/proc_numa_maps.js';
import { readProcStatus } from '../../sysfs/proc_status.js';
import type { SysRoot } from '../../sysfs/root.js';
import type { Context } from '../context.js';
import { stopOnSignals } from '../stop_signals.js';
import type { CommandModule, ParsedOptions } from '../options.js';

const OPTIONS = {
  paced: {
    type: 'boolean',
    help: "move with the agent's paced mover: anonymous pages in batches of\nmove_pages(2), stoppable by SIGINT/SIGTERM (default: one migrate_pages(2),\nevery page, as migratepages)",
  },
  rate: {
    type: 'string',
    value: 'MBPS',
    help: 'with --paced (implied): at most MBPS megabytes (10^6 bytes) a second',
  },
  threads: {
    type: 'boolean',
    help: "also move the threads whose CPUs are all on FROM-NODES to TO-NODES' CPUs",
  },
  json: { type: 'boolean', help: 'the result as JSON (schemaVersion 1, docs/json.md)' },
} as const;

type Opts = ParsedOptions<typeof OPTIONS>;

/** Signal numbers, for the exit status of a stopped move (128 + N, as a shell reports it). */
const SIGNALS = { SIGINT: 2, SIGTERM: 15 } as const;

/** What a mover did, before the command adds the nodes before and after, the threads and the time. */
type Moved = Omit<MigrateResult, 'nodesBefore' | 'nodesAfter' | 'threadsMoved' | 'ms'>;

async function run({ values, positionals }: Opts, ctx: Context): Promise<number> {
  if (!ctx.root.isReal)
    throw new NumakitError(`migrate: refusing to act on ${ctx.root.label}: it is a snapshot, not this running system`);
  const [pidText, fromText, toText] = positionals as [string, string, string];
  const pid = parsePid(pidText);
  const mbps = parseRate(values.rate);
  const paced = values.paced === true || values.rate !== undefined;
  const { readSystem } = await import('../../actuate/run_binding.js');
  const sys = readSystem(ctx.root);
  const [from, to] = [parseNodes(fromText, sys.nodes), parseNodes(toText, sys.nodes)];
  for (const n of to)
    if (!sys.memoryNodes.includes(n)) throw new SpecError(`migrate: node ${n} has no memory: it cannot take pages`);
  if (readProcStatus(ctx.root, pid) === null) throw new NumakitError(`migrate: no process ${pid}`);

  const before = nodeBytes(ctx.root, pid);
  const { nativeOps } = await import('../../agent/ops.js');
  const ops = await nativeOps(ctx.root);
  const threadsMoved = values.threads
    ? moveThreads(ops, pid, cpusOf(sys.nodeCpus, from), cpusOf(sys.nodeCpus, to))
    : null;
  const t0 = performance.now();
  const moved = paced
    ? await pacedMove(pid, from, to, mbps, ops, ctx)
    : await wholeMove(ctx.root, pid, from, to, before);
  const r: MigrateResult = {
    ...moved,
    ms: Math.round(performance.now() - t0),
    threadsMoved,
    nodesBefore: before,
    nodesAfter: nodeBytes(ctx.root, pid),
  };
  ctx.out(values.json ? renderMigrateJson(r) : renderMigrate(r));
  if (r.end === 'done') return 0;
  if (r.end === 'stopped') return 128 + (SIGNALS[r.signal as keyof typeof SIGNALS] ?? 15);
  return 1;
}

function parsePid(text: string): number {
  if (!/^[1-9]\d{0,9}$/.test(text)) throw new UsageError(`migrate: '${text}' is not a process id`);
  return Number(text);
}

/** --rate MBPS: a positive number; 0 (no limit) without it. */
function parseRate(text: string | undefined): number {
  if (text === undefined) return 0;
  const mbps = Number(text);
  if (!/^\d+(\.\d+)?$/.test(text) || !(mbps > 0))
    throw new UsageError(`migrate: --rate '${text}': not a positive number of MB/s`);
  return mbps;
}

/** FROM-NODES or TO-NODES, as numactl reads them, any of the machine's nodes allowed. */
function parseNodes(text: string, nodes: number[]): number[] {
  try {
    return parseNodeSpec(text, { allowed: nodes, universe: nodes });
  } catch (e) {
    if (e instanceof SpecError) throw new SpecError(`migrate: ${e.message}`);
    throw e;
  }
}

/** One migrate_pages(2), as migratepages: every page on FROM-NODES; what moved is read from numa_maps after. */
async function wholeMove(
  root: SysRoot,
  pid: number,
  from: number[],
  to: number[],
  before: Map<number, number> | null,
): Promise<Moved> {
  const { migratePages } = await import('../../native/migrate_pages.js');
  const notMoved = migrateOrSay(() => migratePages(pid, { from, to }), pid);
  const after = nodeBytes(root, pid);
  return {
    pid,
    from,
    to,
    mover: 'migrate_pages',
    end: 'done',
    movedBytes: before !== null && after !== null ? leftBytes(before, after, from) : 0,
    plannedBytes: null,
    pagesNotMoved: notMoved,
  };
}

function migrateOrSay(move: () => number, pid: number): number {
  try {
    return move();
  } catch (e) {
    if (e instanceof Error && e.name === 'NativeError') {
      const code = (e as { code?: string }).code;
      if (code === 'ESRCH') throw new NumakitError(`migrate: no process ${pid}`);
      if (code === 'EPERM')
        throw new NumakitError(
          `migrate: pid ${pid} is another user's: moving its pages needs CAP_SYS_NICE (run as root); nothing was changed`,
        );
      throw new NumakitError(`migrate: ${e.message}`);
    }
    throw e;
  }
}

type Ops = Awaited<ReturnType<typeof import('../../agent/ops.js').nativeOps>>;

async function pacedMove(
  pid: number,
  from: number[],
  to: number[],
  mbps: number,
  ops: Ops,
  ctx: Context,
): Promise<Moved> {
  const [{ movePaced }, { REAL_CLOCK }, { formatBytes }] = await Promise.all([
    import('../../agent/mover.js'),
    import('../../agent/clock.js'),
    import('../../model/bytes.js'),
  ]);
  if (from.length === to.length && from.every((n, i) => n === to[i]))
    // Every node maps to itself: nothing to move (the mover would count pages "moved" in place).
    return { pid, from, to, mover: 'paced', end: 'done', movedBytes: 0, plannedBytes: 0, pagesNotMoved: 0 };
  const stop = stopOnSignals();
  const tty = process.stderr.isTTY === true;
  let shown = 0;
  try {
    const r = await movePaced(pid, from, to, {
      ops,
      clock: REAL_CLOCK,
      pace: { mbps, cpuShare: 1 },
      signal: stop.abort.signal,
      progress: (moved, planned) => {
        if (!tty || performance.now() - shown < 200) return;
        shown = performance.now();
        ctx.err(`\rnumakit: migrate: ${formatBytes(moved)} of ${formatBytes(planned)} moved `);
      },
    });
    if (tty && shown > 0) ctx.err('\n');
    return {
      pid,
      from,
      to,
      mover: 'paced',
      end: r.end,
      movedBytes: r.movedBytes,
      plannedBytes: r.plannedBytes,
      pagesNotMoved: r.notMoved,
      ...(r.end === 'stopped' && stop.signal !== undefined ? { signal: stop.signal } : {}),
      ...(r.message !== undefined ? { message: r.message } : {}),
    };
  } finally {
    stop.off();
  }
}

function nodeBytes(root: SysRoot, pid: number): Map<number, number> | null {
  const maps = readNumaMaps(root, pid);
  return maps.ok ? bytesPerNode(maps.mappings) : null;
}

function cpusOf(nodeCpus: ReadonlyMap<number, number[]>, nodes: readonly number[]): number[] {
  return nodes.flatMap((n) => nodeCpus.get(n) ?? []).sort((a, b) => a - b);
}

/** Threads whose CPUs are all on the FROM nodes get the TO nodes' CPUs; returns how many. */
function moveThreads(ops: Ops, pid: number, fromCpus: number[], toCpus: number[]): number {
  if (toCpus.length === 0) throw new SpecError('migrate: --threads: the TO nodes have no CPUs');
  const inFrom = new Set(fromCpus);
  let moved = 0;
  for (const t of ops.threads(pid) ?? []) {
    try {
      const cpus = ops.getAffinity(t.tid);
      if (cpus.length === 0 || !cpus.every((c) => inFrom.has(c))) continue;
      ops.setAffinity(t.tid, toCpus);
      moved++;
    } catch (e) {
      if ((e as { code?: string }).code === 'ESRCH') continue; // the thread ended
      throw new NumakitError(`migrate: thread ${t.tid}: ${(e as Error).message}`);
    }
  }
  return moved;
}

const cmd: CommandModule<Opts> = {
  synopsis: ['PID FROM-NODES TO-NODES [--paced] [--rate MBPS] [--threads] [--json]'],
  description: `Moves the pages of process PID that are on FROM-NODES to TO-NODES, as numactl's
migratepages: the sets are paired in order (the first FROM node's pages go to the first TO
node, and so on, as migrate_pages(2) maps them). By default one migrate_pages(2) call moves
every page (anonymous and file-backed) at once. With --paced or --rate the agent's mover
moves the anonymous pages in batches within a MB/s budget, shows progress on a terminal, and
stops cleanly on SIGINT or SIGTERM, saying what moved. Prints the process's memory per node
before and after (numa_maps). Moving another user's process needs CAP_SYS_NICE.`,
  options: OPTIONS,
  positionals: { name: 'PID FROM-NODES TO-NODES', min: 3, max: 3, complete: 'pid' },
  sections: [
    {
      title: 'NODES',
      body: 'all | N | N-M | lists of those (0,2-3) | !SPEC (all but); any node, as migratepages.',
    },
  ],
  exit: {
    0: 'moved (pages the kernel would not move are counted, not an error)',
    1: 'no such process or node, a node without memory, or the move failed part way (said how far it got)',
    130: 'a paced move stopped by SIGINT (143: SIGTERM); what moved is reported',
  },
  run,
};
export default cmd;
