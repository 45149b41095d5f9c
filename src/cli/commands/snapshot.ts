// numakit snapshot OUT [--processes] [--no-redact]
import { existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { makeDirs } from '../../runtime/make_dirs.js';
import { hostname, tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import type { Access, writeSnapshotTree as WriteTree } from '../../actuate/snapshot_write.js';
import { SNAPSHOT_COLLECTORS } from '../../discover/snapshot_collectors.js';
import { NumakitError, SysfsParseError } from '../../model/errors.js';
import type { SysRoot } from '../../sysfs/root.js';
import type { Context } from '../context.js';
import type { ParsedOptions, CommandModule } from '../options.js';

/** Paths that lead through /proc/self: copied as plain files, never as a link to numakit's pid. */
const THROUGH_SELF = /^proc\/(self|thread-self|mounts|net)(\/|$)/;
const OPTIONS = {
  processes: {
    type: 'boolean',
    help: 'include per-process data (/proc/PID/{status,numa_maps,stat,...});\noff by default',
  },
  'no-redact': { type: 'boolean', help: 'keep full command lines (by default only the program name is kept)' },
  json: { type: 'boolean', help: 'say what was written as JSON (schemaVersion 1, docs/json.md)' },
} as const;

const PROC_PID = /^proc\/(self|thread-self|\d+)(\/|$)/;
/**
 * What a snapshot carries of the process that takes it, with or without --processes: its
 * cgroup (the path to the cpuset and memory limit files that restrict it, which are copied too)
 * and its status (Cpus_allowed_list, Mems_allowed_list: what it may use, a cgroup or a
 * taskset/numactl binding). topo and plan on the snapshot then see the restriction the machine
 * had where it was taken (a container, a slice). They name no other process, and nothing the
 * sys/fs/cgroup files copied anyway do not already say; the rest of proc/self (numa_maps names
 * its program's and libraries' paths) stays behind --processes.
 */
const OWN_LIMITS = /^proc\/self\/(cgroup|status)$/;

/** Keeps argv[0] and replaces every argument by "REDACTED" (cmdline is NUL-separated). */
export function redactCmdline(content: Buffer): Buffer {
  const args = content
    .toString('utf8')
    .split('\0')
    .filter((a, i, all) => a !== '' || i < all.length - 1);
  if (args.length <= 1) return content;
  return Buffer.from([args[0], ...args.slice(1).map(() => 'REDACTED')].join('\0') + '\0');
}

async function record(root: SysRoot, processes: boolean, warn: (s: string) => void): Promise<Access[]> {
  const seen = new Map<string, Access>();
  const recording: SysRoot = { ...root, onAccess: (kind, rel) => void seen.set(`${kind}:${rel}`, { kind, rel }) };
  for (const c of SNAPSHOT_COLLECTORS) {
    try {
      await c.collect(recording, { processes });
    } catch (e) {
      if (!(e instanceof SysfsParseError || e instanceof NumakitError)) throw e;
      warn(`snapshot: ${c.name}: ${e.message} (copied as it is)`);
    }
  }
  return [...seen.values()];
}

/**
 * "2 files not readable by uid 1000 were left out: /proc/1/numa_maps, ... (run as root for a
 * complete snapshot)". Root is refused only by something other than file modes, so running as
 * root is not the advice there: a security module (Yama's ptrace_scope 3 refuses even root the
 * /proc/PID files that need ptrace access, SELinux, AppArmor) or a container without CAP_SYS_PTRACE.
 */
export function unreadableNote(paths: readonly string[], uid: number | undefined = process.getuid?.()): string {
  const shown = paths.length <= 5 ? paths.join(', ') : `${paths.slice(0, 5).join(', ')} and ${paths.length - 5} more`;
  const advice =
    uid === 0
      ? 'root was refused them by something other than file modes: a security module (Yama ptrace_scope, SELinux, AppArmor) or a container without CAP_SYS_PTRACE'
      : 'run as root for a complete snapshot';
  return `${paths.length} file(s) not readable by uid ${uid} were left out: ${shown} (${advice}; the manifest lists them)`;
}

/** Writes the snapshot's files and manifest into `dir`; what it wrote, for the last line. */
function fillSnapshot(
  ctx: Context,
  dir: string,
  o: { accesses: Access[]; processes: boolean; redact: boolean; write: typeof WriteTree },
): { files: number; unreadable: string[]; date: string } {
  const { processes } = o;
  const unreadable: string[] = [];
  const files = o.write(ctx.root.dir, dir, o.accesses, {
    denied: (rel) => void unreadable.push(`/${rel}`),
    // numakit's own process is never a process of its snapshot (as it is never in stat --procs
    // or top): what is read of it is written under proc/self/ as plain files, no link to a pid.
    // proc/mounts and proc/net are links into self/ (proc(5)): written at their own paths too.
    skip: (rel) =>
      rel === 'proc/self' ||
      (!processes && PROC_PID.test(rel) && !OWN_LIMITS.test(rel)) ||
      (ctx.root.isReal && (rel === `proc/${process.pid}` || rel.startsWith(`proc/${process.pid}/`))),
    plain: (rel) => THROUGH_SELF.test(rel),
    transform: (rel, c) => (!o.redact || !/^proc\/\d+\/(task\/\d+\/)?cmdline$/.test(rel) ? c : redactCmdline(c)),
  });
  const manifest = {
    name: 'snapshot',
    description: `snapshot of ${ctx.root.isReal ? hostname() : ctx.root.label} taken by numakit snapshot`,
    synthetic: false,
    source: 'numakit snapshot',
    date: new Date().toISOString(),
    processes,
    redacted: o.redact,
    files,
    unreadable,
  };
  writeFileSync(join(dir, 'manifest.json'), JSON.stringify(manifest, null, 2) + '\n');
  return { files, unreadable, date: manifest.date };
}

const snapshot: CommandModule<ParsedOptions<typeof OPTIONS>> = {
  synopsis: ['OUT [--processes] [--no-redact] [--json]'],
  description: `Copies the parts of /sys and /proc that numakit reads into OUT (a directory, or a
file ending in .tar.gz), following the symlinks it needs, so that every numakit
command works on it later with --root OUT (like hwloc-gather-topology). Files this user may
not read (other users' /proc/PID files, without root) are left out and named: on stderr, and
as "unreadable" in the manifest and in --json. With or without --processes it carries the
limits of its own process (proc/self/cgroup and status, and the cgroup files they lead to), so
topo and plan on it see the cpuset and memory limit it ran under.`,
  options: OPTIONS,
  positionals: {
    name: 'OUT',
    min: 1,
    complete: 'file',
    help: 'an empty or new directory, or a file ending in .tar.gz',
  },
  async run({ values, positionals }, ctx) {
    const out = positionals[0]!;
    if (ctx.root.tree)
      throw new NumakitError(`snapshot: ${ctx.root.label} is already a snapshot archive: copy the file instead`);
    const archive = /\.(tar\.gz|tgz)$/.test(out);
    if (!archive && existsSync(out) && readdirSync(out).length > 0)
      throw new NumakitError(`snapshot: ${out}: directory is not empty`);
    const processes = values.processes === true;
    const accesses = await record(ctx.root, processes, (s) => ctx.err(`${s}\n`));
    const { writeSnapshotTree } = await import('../../actuate/snapshot_write.js');
    const { replaceDir } = await import('../../actuate/atomic_write.js');
    // A directory OUT is filled beside it and renamed into place (replaceDir), an archive is
    // packed from a private directory: a link planted at OUT is replaced, never written through.
    if (!archive) makeDirs(dirname(resolve(out)));
    const dir = archive ? mkdtempSync(join(tmpdir(), 'numakit-snap-')) : null;
    const fill = { accesses, processes, redact: !values['no-redact'], write: writeSnapshotTree };
    try {
      let made: ReturnType<typeof fillSnapshot> | undefined;
      if (dir !== null) {
        made = fillSnapshot(ctx, dir, fill);
        await (await import('../../actuate/snapshot_write.js')).createSnapshotArchive(dir, out);
      } else await replaceDir(out, (tmp) => void (made = fillSnapshot(ctx, tmp, fill)));
      const { files, unreadable, date } = made!;
      if (unreadable.length > 0) ctx.err(`numakit: note: ${unreadableNote(unreadable)}\n`);
      ctx.out(
        values.json
          ? `${JSON.stringify({ schemaVersion: 1, out, files, processes, redacted: !values['no-redact'], date, unreadable })}\n`
          : `numakit: wrote ${files} files to ${out}; read it with: numakit --root ${out} topo\n`,
      );
    } finally {
      if (dir !== null) rmSync(dir, { recursive: true, force: true });
    }
    return 0;
  },
};
export default snapshot;
