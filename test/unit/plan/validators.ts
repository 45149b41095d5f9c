// Validates generated plan files with the tools a user would use: bash -n and shellcheck on
// scripts, systemd-analyze verify on units and drop-ins, an XML parser on yarn-site.xml, a YAML
// parser plus Kubernetes object schemas on manifests, and Spark keys against Spark's docs.
import { chmodSync, cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import type { PlanFile } from '../../../src/policy/plan/types.js';
import { run } from './tools.js';

export const isShell = (f: PlanFile) =>
  f.content.startsWith('#!/usr/bin/env bash') || f.content.startsWith('# shellcheck shell=bash');
export const isUnit = (f: PlanFile) => /\.service$/.test(f.path) || /\.service\.d\/[^/]+\.conf$/.test(f.path);

/** Problems bash -n and shellcheck report for one script ('' when clean). */
export function checkShell(f: PlanFile): string {
  const n = run('bash', ['-n'], { input: f.content });
  if (n.code !== 0) return `bash -n ${f.path}: ${n.out}`;
  const s = run('shellcheck', ['--shell=bash', '--severity=style', '-'], { input: f.content });
  return s.code === 0 ? '' : `shellcheck ${f.path}:\n${s.out}`;
}

/** Unit names to verify: plain units as they are, a template through one instance per drop-in (or @0). */
function unitNames(units: PlanFile[]): string[] {
  const names = new Set<string>();
  for (const f of units) {
    const m = /\/([^/]+\.service)(\.d\/[^/]+\.conf)?$/.exec(f.path)!;
    if (m[2] !== undefined) names.add(m[1]!);
    else if (!m[1]!.includes('@.')) names.add(m[1]!);
  }
  for (const f of units) {
    const m = /\/([^/]+)@\.service$/.exec(f.path);
    if (m && ![...names].some((n) => n.startsWith(`${m[1]}@`))) names.add(`${m[1]}@0.service`);
  }
  return [...names];
}

/** The absolute programs of Exec*= lines (stubbed in the verify root so verify can check them). */
function programs(units: readonly { content: string }[]): string[] {
  return units.flatMap((f) =>
    [...f.content.matchAll(/^Exec(?:Start|StartPre|StartPost|Stop|StopPost|Reload)=[-@+!]*(\/\S+)/gm)].map(
      (m) => m[1]!,
    ),
  );
}

/** A unit a package installs, to verify a drop-in against (test/fixtures/plan/units/). */
export interface PackagedUnit {
  readonly name: string;
  readonly content: string;
}

let scratch: string | null = null;

/** A scratch root holding a copy of the host's system units, made once per test process. */
function verifyRoot(): string {
  if (scratch === null) {
    scratch = mkdtempSync(join(tmpdir(), 'numakit-verify-'));
    cpSync('/usr/lib/systemd/system', join(scratch, 'usr/lib/systemd/system'), {
      recursive: true,
      verbatimSymlinks: true,
    });
    process.on('exit', () => rmSync(scratch!, { recursive: true, force: true }));
  }
  return scratch;
}

/**
 * systemd-analyze verify on all units of a plan, in a scratch root with the host's system units
 * and, when given, the packaged units the plan's drop-ins extend (else a minimal stand-in).
 */
export function checkUnits(
  units: PlanFile[],
  packaged: readonly PackagedUnit[] = [],
  /** Programs an ExecStart names without a path, stubbed where systemd's search path finds them. */
  found: readonly string[] = [],
): string {
  if (units.length === 0) return '';
  const root = verifyRoot();
  // Each plan gets a fresh /etc; stub programs left by earlier plans are harmless (each plan stubs its own).
  rmSync(join(root, 'etc'), { recursive: true, force: true });
  mkdirSync(join(root, 'etc/systemd/system'), { recursive: true });
  for (const u of packaged) writeFileSync(join(root, 'etc/systemd/system', u.name), u.content);
  for (const f of units) {
    const p = join(root, f.path);
    mkdirSync(dirname(p), { recursive: true });
    writeFileSync(p, f.content);
  }
  for (const name of unitNames(units)) {
    const base = join(root, 'etc/systemd/system', name.replace(/@[^.]+\.service$/, '@.service'));
    // A drop-in for a packaged unit (mysql.service ...): stand in a minimal base unit.
    if (!existsSync(base)) writeFileSync(base, '[Service]\nExecStart=/usr/sbin/packaged-server\n');
    const template = name.replace(/@[^.]+\.service$/, '@.service');
    if (template !== name) cpSync(join(root, 'etc/systemd/system', template), join(root, 'etc/systemd/system', name));
  }
  for (const prog of [...programs(units), ...programs(packaged), '/usr/sbin/packaged-server', ...found]) {
    mkdirSync(dirname(join(root, prog)), { recursive: true });
    writeFileSync(join(root, prog), '#!/bin/sh\n');
    chmodSync(join(root, prog), 0o755);
  }
  const r = run('systemd-analyze', ['verify', `--root=${root}`, ...unitNames(units)]);
  return r.code === 0 && r.out.trim() === '' ? '' : `systemd-analyze verify ${unitNames(units).join(' ')}:\n${r.out}`;
}

const KEY_FILE = new URL('../../fixtures/plan/spark-config-keys.txt', import.meta.url);

/** Documented Spark keys as regexes ([Placeholder] = one segment; [OptionName] = the rest). */
export function sparkKeyPatterns(): RegExp[] {
  return readFileSync(KEY_FILE, 'utf8')
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l !== '' && !l.startsWith('#'))
    .map(
      (k) =>
        new RegExp(
          `^${k
            .split(/(\[[A-Za-z]+\])/)
            .map((p) => (p === '[OptionName]' ? '.+' : p.startsWith('[') ? '[^.]+' : p.replace(/\./g, '\\.')))
            .join('')}$`,
        ),
    );
}

/** Keys of spark-defaults.conf lines and of --conf key=value arguments. */
export function sparkKeysIn(f: PlanFile): string[] {
  const keys: string[] = [];
  if (f.path.endsWith('spark-defaults.conf')) {
    for (const l of f.content.split('\n')) if (/^spark\./.test(l)) keys.push(l.split(/\s+/)[0]!);
  }
  for (const m of f.content.matchAll(/--conf "?(spark\.[^=\s]+)=/g)) keys.push(m[1]!);
  return keys;
}

export const isManifest = (f: PlanFile) => /^apiVersion: /m.test(f.content) && /^kind: /m.test(f.content);
export const isXml = (f: PlanFile) => f.content.startsWith('<?xml');
