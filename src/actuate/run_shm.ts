// `numakit run --shm KEYFILE | --file PATH`: numactl's shared memory policies. Attaches a SysV
// segment (keyed by ftok(KEYFILE, --shmid), created with --length and --shmmode when missing)
// or maps a file in tmpfs or hugetlbfs (created or grown to --offset + --length), then runs the
// steps in the order given on the range: a policy (mbind, MPOL_MF_STRICT after --strict),
// --touch, --dump, --dump-nodes. The policy stays with the segment or file (the kernel's shared
// policy, mm/mempolicy.c) after numakit detaches; pages allocated later follow it.
import { closeSync, fstatSync, ftruncateSync, openSync, rmSync } from 'node:fs';
import { formatBytes } from '../model/bytes.js';
import { NumakitError } from '../model/errors.js';
import type { ShmArgs } from '../model/run_args.js';
import { SpecError } from '../policy/nodespec.js';
import { pageRuns, renderNodeDump, renderPolicyDump, samePolicy, type RangePolicy } from '../render/shm_dump.js';
import { readMeminfo } from '../sysfs/node_meminfo.js';
import type { SysRoot } from '../sysfs/root.js';
import { memoryPolicy, modeSince, type RouteDevice, type SystemSets } from './run_binding.js';

type Native = typeof import('../native/index.js');

export interface ShmContext {
  readonly sys: SystemSets;
  readonly root: SysRoot;
  /** --all: node specs may name nodes outside Mems_allowed. */
  readonly all: boolean;
  readonly out: (text: string) => void;
  /** One-line notices (what was created). */
  readonly note: (line: string) => void;
  /** For ip:HOST specs (loadRouting). */
  readonly route?: RouteDevice;
}

interface Attached {
  readonly addr: bigint;
  readonly length: number;
  readonly pageSize: number;
  readonly detach: () => void;
  /** Removes what this run created (segment and key file, or file); null when it created nothing. */
  readonly undo: (() => void) | null;
}

type Resolved =
  | ShmArgs['steps'][number]
  | { kind: 'mbind'; mode: number; nodes: number[]; flag: string; since?: string };

const octal = (mode: number) => mode.toString(8).padStart(4, '0');

/**
 * Runs `args`' steps on its segment or file; detaches (and closes) whatever happens. Node specs
 * are checked before anything is created, and a step that fails removes what this run created:
 * nothing is left half made.
 */
export function applyShm(native: Native, args: ShmArgs, ctx: ShmContext): void {
  const steps: Resolved[] = args.steps.map((step) => {
    if (step.kind !== 'policy') return step;
    const p = memoryPolicy(native, step.memory, { sys: ctx.sys, all: ctx.all, root: ctx.root, route: ctx.route });
    // On a range, libnuma's numa_setlocal_memory is MPOL_PREFERRED without nodes.
    const mode = step.memory.kind === 'localalloc' ? native.MPOL_PREFERRED : p.mode;
    return { kind: 'mbind', mode, nodes: p.nodes, flag: step.flag, since: modeSince(step.memory.kind) };
  });
  const range = args.kind === 'shm' ? attachSegment(native, args, ctx) : mapFile(native, args, ctx);
  try {
    runSteps(native, steps, args.offset, range, ctx);
  } catch (e) {
    range.detach();
    range.undo?.();
    throw e;
  }
  range.detach();
}

function runSteps(native: Native, steps: readonly Resolved[], offset: number, range: Attached, ctx: ShmContext): void {
  let flags = 0;
  const mem = { addr: range.addr, length: range.length };
  for (const step of steps) {
    switch (step.kind) {
      case 'strict':
        flags |= native.MPOL_MF_STRICT;
        break;
      case 'policy':
        throw new Error('unresolved policy step'); // resolved to mbind by applyShm
      case 'mbind':
        try {
          native.mbind(mem, { mode: step.mode, nodes: step.nodes }, { flags });
        } catch (e) {
          if (e instanceof native.NativeError && e.code === 'EINVAL' && step.since !== undefined)
            throw new NumakitError(
              `${step.flag} needs Linux ${step.since} or later; this kernel rejected it (mbind: Invalid argument)`,
            );
          throw e;
        }
        break;
      case 'touch':
        touch(native, range);
        break;
      case 'dump':
        ctx.out(renderPolicyDump(pageRuns(policies(native, range), range.pageSize, samePolicy), offset));
        break;
      case 'dump-nodes':
        ctx.out(
          renderNodeDump(
            pageRuns(pageNodes(native, range), range.pageSize, (a, b) => a === b),
            offset,
          ),
        );
        break;
    }
  }
}

function* pageAddrs(range: Attached): Generator<bigint> {
  const step = BigInt(range.pageSize);
  for (let a = range.addr, end = range.addr + BigInt(range.length); a < end; a += step) yield a;
}

function* policies(native: Native, range: Attached): Generator<RangePolicy> {
  for (const addr of pageAddrs(range)) yield native.getMempolicy({ addr });
}

/** The node of each page; get_mempolicy(MPOL_F_NODE | MPOL_F_ADDR) faults a missing page in. */
function* pageNodes(native: Native, range: Attached): Generator<number> {
  for (const addr of pageAddrs(range)) yield native.pageNode(addr);
}

/** numactl's numa_police_memory: every page faulted in as by a read, so it is allocated under the policy. */
function touch(native: Native, range: Attached): void {
  if (native.populateRead({ addr: range.addr, length: range.length })) return;
  for (const addr of pageAddrs(range)) native.pageNode(addr);
}

function checkRegion(addr: bigint, length: number, pageSize: number, what: string): void {
  if (addr % BigInt(pageSize) !== 0n || length % pageSize !== 0)
    throw new SpecError(
      `${what}: the range (--offset, --length ${length}) is not aligned to its ${formatBytes(pageSize)} pages`,
    );
}

function attachSegment(native: Native, args: ShmArgs, ctx: ShmContext): Attached {
  const what = `--shm ${args.path}`;
  const { key, createdKey } = segmentKey(native, args, ctx);
  const dropKey = () => {
    if (createdKey) rmSync(args.path, { force: true });
  };
  const { segment, createdSegment } = findOrCreateSegment(native, args, ctx, key, dropKey);
  const undo =
    createdSegment || createdKey
      ? () => {
          if (createdSegment) native.shmRemove(segment);
          dropKey();
        }
      : null;
  let base: bigint | undefined;
  try {
    const size = native.shmSize(segment);
    const length = args.length ?? size - args.offset;
    if (length <= 0 || args.offset + length > size)
      throw new SpecError(
        `${what}: --offset ${args.offset} and --length ${length} reach past the segment's ${size} bytes`,
      );
    base = native.shmat(segment);
    const pageSize = args.huge ? hugePageSize(ctx.root) : native.pageSize();
    const addr = base + BigInt(args.offset);
    checkRegion(addr, length, pageSize, what);
    const attached = base;
    return { addr, length, pageSize, detach: () => native.shmdt(attached), undo };
  } catch (e) {
    if (base !== undefined) native.shmdt(base);
    undo?.();
    throw e;
  }
}

/** ftok(KEYFILE, ID), creating the key file (with --length) where it is missing. */
function segmentKey(native: Native, args: ShmArgs, ctx: ShmContext): { key: number; createdKey: boolean } {
  const what = `--shm ${args.path}`;
  const key = native.ftok(args.path, args.id);
  if (key !== null) return { key, createdKey: false };
  if (args.length === undefined)
    throw new SpecError(`${what}: no such key file; give --length to create it and the segment`);
  try {
    closeSync(openSync(args.path, 'wx', args.mode));
  } catch (e) {
    throw new NumakitError(`${what}: cannot create the key file: ${(e as Error).message}`);
  }
  ctx.note(`numakit: run: created the shm key file ${args.path} (mode ${octal(args.mode)})\n`);
  const created = native.ftok(args.path, args.id);
  if (created === null) throw new NumakitError(`${what}: the key file vanished after it was created`);
  return { key: created, createdKey: true };
}

/**
 * The segment of `key`, created (with --length) where there is none. Nothing half made: where it
 * cannot be, the key file this run created goes too (`dropKey`).
 */
function findOrCreateSegment(
  native: Native,
  args: ShmArgs,
  ctx: ShmContext,
  key: number,
  dropKey: () => void,
): { segment: number; createdSegment: boolean } {
  const huge = args.huge ? native.SHM_HUGETLB : 0;
  // Looked up with size 0: shmget refuses a size larger than the existing segment's.
  const id = native.shmget(key, 0, huge);
  if (id !== null) return { segment: id, createdSegment: false };
  if (args.length === undefined) {
    dropKey();
    throw new SpecError(`--shm ${args.path}: no such segment; give --length to create one`);
  }
  const size = args.offset + args.length;
  let segment: number;
  try {
    segment = native.shmget(key, size, native.IPC_CREAT | args.mode | huge)!;
  } catch (e) {
    dropKey();
    throw e;
  }
  ctx.note(
    `numakit: run: created the shared memory segment ${args.path} (id ${args.id}, mode ${octal(args.mode)}, ${formatBytes(size)})\n`,
  );
  return { segment, createdSegment: true };
}

/** /proc/meminfo's Hugepagesize (the size SHM_HUGETLB segments use), 2 MiB when unknown. */
function hugePageSize(root: SysRoot): number {
  return readMeminfo(root)?.Hugepagesize ?? 2 << 20;
}

function mapFile(native: Native, args: ShmArgs, ctx: ShmContext): Attached {
  const what = `--file ${args.path}`;
  let fd: number;
  let created = false;
  try {
    fd = openSync(args.path, 'r+');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'ENOENT')
      throw new NumakitError(`${what}: cannot open it: ${(e as Error).message}`);
    if (args.length === undefined) throw new SpecError(`${what}: no such file; give --length to create it`);
    try {
      fd = openSync(args.path, 'wx+', args.mode);
    } catch (e2) {
      throw new NumakitError(`${what}: cannot create it: ${(e2 as Error).message}`);
    }
    created = true;
    ctx.note(`numakit: run: created ${args.path} (mode ${octal(args.mode)})\n`);
  }
  try {
    const st = fstatSync(fd);
    if (!st.isFile()) throw new SpecError(`${what}: not a regular file`);
    const length = args.length ?? st.size - args.offset;
    if (length <= 0)
      throw new SpecError(`${what}: nothing to map from offset ${args.offset} of ${st.size} bytes; give --length`);
    // A tmpfs file grows to hold the range (numactl's ftruncate); hugetlbfs rounds to its pages.
    if (args.offset + length > st.size) ftruncateSync(fd, args.offset + length);
    // st_blksize is the page size of the filesystem: 4 KiB on tmpfs, the huge page on hugetlbfs.
    const pageSize = st.blksize;
    if (args.offset % pageSize !== 0 || length % pageSize !== 0)
      checkRegion(BigInt(args.offset), length, pageSize, what);
    const addr = native.mmapShared(fd, length, args.offset);
    closeSync(fd);
    fd = -1;
    const undo = created ? () => rmSync(args.path, { force: true }) : null;
    return { addr, length, pageSize, detach: () => native.munmap({ addr, length }), undo };
  } catch (e) {
    if (created) rmSync(args.path, { force: true });
    throw e;
  } finally {
    if (fd >= 0) closeSync(fd);
  }
}
