// Runs doctor's "now" and "persist" commands the way a reader pastes them, top to bottom, in a
// scratch root: absolute paths (/etc, /sys, /proc, /run) point into the root, and the tools that
// act outside files are stubs on PATH that act on the root: sysctl writes proc/sys, systemctl
// records unit states, tuned-adm refuses a profile that neither ships with tuned nor exists
// under etc/tuned (so a child profile must be created before it is named).
import { spawnSync } from 'node:child_process';
import { chmodSync, lstatSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import type { Problem } from '../../../src/model/finding.js';

const STOCK_TUNED = [
  'throughput-performance',
  'latency-performance',
  'network-latency',
  'network-throughput',
  'realtime',
  'balanced',
  'powersave',
  'virtual-guest',
  'virtual-host',
];

const STUBS: Record<string, string> = {
  sysctl: `#!/bin/bash
set -e
if [[ "$1" == "--system" ]]; then
  for f in "$NUMAKIT_ROOT"/etc/sysctl.d/*.conf; do
    [[ -e "$f" ]] || continue
    while IFS= read -r line; do
      [[ "$line" =~ ^[[:space:]]*([a-z0-9_.]+)[[:space:]]*=[[:space:]]*(.*)$ ]] || continue
      p="$NUMAKIT_ROOT/proc/sys/\${BASH_REMATCH[1]//.//}"
      [[ -e "$p" ]] && echo "\${BASH_REMATCH[2]}" > "$p"
    done < "$f"
  done
  exit 0
fi
[[ "$1" == "-w" && "$2" =~ ^([a-z0-9_.]+)=(.*)$ ]] || { echo "sysctl stub: usage" >&2; exit 2; }
p="$NUMAKIT_ROOT/proc/sys/\${BASH_REMATCH[1]//.//}"
[[ -e "$p" ]] || { echo "sysctl: cannot stat $p: No such file or directory" >&2; exit 255; }
echo "\${BASH_REMATCH[2]}" > "$p"
`,
  systemctl: `#!/bin/bash
set -e
mkdir -p "$NUMAKIT_ROOT/run/stub-systemd"
verb="$1"; shift
[[ "$1" == "--now" ]] && shift
for unit in "$@"; do echo "$verb" > "$NUMAKIT_ROOT/run/stub-systemd/$unit"; done
`,
  'tuned-adm': `#!/bin/bash
set -e
[[ "$1" == "profile" && -n "$2" ]] || { echo "tuned-adm stub: usage" >&2; exit 2; }
case " ${STOCK_TUNED.join(' ')} " in *" $2 "*) ;; *)
  [[ -f "$NUMAKIT_ROOT/etc/tuned/$2/tuned.conf" ]] || { echo "Requested profile '$2' doesn't exist." >&2; exit 1; } ;;
esac
mkdir -p "$NUMAKIT_ROOT/etc/tuned"
echo "$2" > "$NUMAKIT_ROOT/etc/tuned/active_profile"
`,
  taskset: '#!/bin/sh\nexit 0\n',
  migratepages: '#!/bin/sh\nexit 0\n',
};

/** The stub tools in DIR/bin. */
export function writeStubs(dir: string): string {
  const bin = join(dir, 'bin');
  mkdirSync(bin, { recursive: true });
  for (const [name, text] of Object.entries(STUBS)) {
    writeFileSync(join(bin, name), text);
    chmodSync(join(bin, name), 0o755);
  }
  return bin;
}

/** Every absolute /etc, /sys, /proc, /run path of a command, pointed into the root. */
export function intoRoot(cmd: string, root: string): string {
  return cmd.replace(/(^|[\s'"=>])\/(etc|sys|proc|run)(?=\/)/g, `$1${root}/$2`);
}

/** The commands of the findings as a reader pastes them from the report: each finding's "now" lines, then its "persist" lines. */
export function pasted(problems: readonly Problem[]): string[] {
  return problems.flatMap((f) => [...f.fix.runtime, ...f.fix.persistent]);
}

/** Targets of "> FILE" redirections that are kernel files (no glob): they must exist (sysfs never creates a file). */
export function kernelTargets(cmd: string): string[] {
  return [...cmd.matchAll(/>\s*(\/(?:sys|proc)\/\S+)/g)].map((m) => m[1]!).filter((p) => !/[*$"]/.test(p));
}

export function runScript(root: string, bin: string, commands: readonly string[]): { code: number; out: string } {
  const script = ['set -euo pipefail', ...commands.map((c) => intoRoot(c, root))].join('\n');
  const r = spawnSync('bash', ['-c', script], {
    encoding: 'utf8',
    env: { ...process.env, PATH: `${bin}:${process.env.PATH}`, NUMAKIT_ROOT: root },
  });
  return { code: r.status ?? 1, out: `${r.stdout}${r.stderr}` };
}

/** Every regular file under dir (relative path -> content); links are not followed (sysfs links loop). */
export function tree(dir: string): Map<string, string> {
  const out = new Map<string, string>();
  const walk = (d: string): void => {
    for (const n of readdirSync(d)) {
      const p = join(d, n);
      const st = lstatSync(p);
      if (st.isDirectory()) walk(p);
      else if (st.isFile()) out.set(relative(dir, p), readFileSync(p, 'utf8'));
    }
  };
  walk(dir);
  return out;
}

/**
 * What the kernel would show after the writes the shell made as plain files: a selector file
 * ("always [madvise] never") shows the written word in brackets; an IRQ's effective affinity
 * moves into its new mask.
 */
export function kernelize(root: string, before: Map<string, string>): void {
  for (const [rel, old] of before) {
    const path = join(root, rel);
    const now = readFileSync(path, 'utf8');
    if (now === old) continue;
    const words = old.replace(/[[\]]/g, '').trim().split(/\s+/);
    if (/\[/.test(old) && words.includes(now.trim()))
      writeFileSync(path, `${words.map((w) => (w === now.trim() ? `[${w}]` : w)).join(' ')}\n`);
    const irq = /^proc\/irq\/(\d+)\/smp_affinity_list$/.exec(rel);
    if (irq !== null && before.has(`proc/irq/${irq[1]}/effective_affinity_list`))
      writeFileSync(join(root, `proc/irq/${irq[1]}/effective_affinity_list`), `${now.trim().split(/[,-]/)[0]}\n`);
  }
}

/** Puts the root back as it was: changed files rewritten, new files removed. */
export function restore(root: string, before: Map<string, string>): void {
  const now = tree(root);
  for (const [rel, text] of now) {
    if (!before.has(rel)) rmSync(join(root, rel));
    else if (before.get(rel) !== text) writeFileSync(join(root, rel), before.get(rel)!);
  }
}
