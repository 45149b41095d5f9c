// --json on every command that has it (walked from the command table): one JSON object with
// schemaVersion first and the keys docs/json.md names, on a shipped example. A command that
// gains --json needs a line in INVOCATIONS (the test says so).
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { COMMANDS, OVERVIEW } from '../../../src/cli/commands/index.js';
import type { Command } from '../../../src/cli/options.js';
import { REPO_DIR, runMain } from '../../helpers/cli.js';

const dir = mkdtempSync(join(tmpdir(), 'numakit-json-'));
after(() => rmSync(dir, { recursive: true, force: true }));
const EX = ['--example', 'spark-2s'];

/**
 * command path -> the arguments that make it print JSON and the keys its object must have; or,
 * for a command that cannot run here in a moment (a benchmark), the test file that checks its
 * --json instead.
 */
type Invocation =
  | { argv: string[]; keys: string[]; codes?: number[]; prepare?: () => Promise<void>; foreign?: string }
  | { elsewhere: string };
const INVOCATIONS: Record<string, Invocation> = {
  '': {
    argv: [...EX, '--json'],
    keys: ['target', 'summary', 'nodes', 'devicesWithoutNode', 'distances', 'doctor', 'stat'],
  },
  topo: { argv: [...EX, 'topo', '--json'], keys: ['nodes', 'cpus', 'devices'] },
  doctor: { argv: [...EX, 'doctor', '--json'], keys: ['target', 'profile', 'summary', 'findings'], codes: [0, 1] },
  stat: { argv: [...EX, 'stat', '--json'], keys: ['numastat'] },
  examples: { argv: ['examples', '--json'], keys: ['examples'] },
  plan: {
    argv: [...EX, 'plan', 'redis', '--json'],
    keys: ['workload', 'machine', 'out', 'derivations', 'notes', 'files'],
  },
  apply: {
    argv: [...EX, 'apply', '--profile', 'database', '--json'],
    keys: ['source', 'dryRun', 'summary', 'changes', 'persist', 'changeSet'],
  },
  rollback: {
    argv: ['rollback', '--dry-run', '--json', '--state-dir', join(dir, 'state')],
    keys: ['dryRun', 'changeSets'],
  },
  journal: { argv: ['journal', '--json', '--state-dir', join(dir, 'state')], keys: ['changeSets'] },
  snapshot: {
    argv: [...EX, 'snapshot', join(dir, 'snap'), '--json'],
    keys: ['out', 'files', 'processes', 'redacted', 'date'],
  },
  'fleet report': {
    argv: ['fleet', 'report', '--json', join(dir, 'fleet')],
    keys: ['hosts', 'classes', 'findings'],
    prepare: async () => {
      mkdirSync(join(dir, 'fleet'), { recursive: true });
      writeFileSync(join(dir, 'fleet', 'host1.json'), (await runMain([...EX, 'doctor', '--json'])).out);
    },
  },
  // Moves a live process's memory: run on a child process it starts.
  migrate: { elsewhere: 'test/unit/migrate/migrate.test.ts' },
  'bench mem': { elsewhere: 'test/unit/bench/mem_cli.test.ts' },
  'bench compare': { elsewhere: 'test/unit/bench/compare_report.test.ts' },
  'bench ab': {
    argv: ['bench', 'ab', '--runs', '3', '--settle', '0', '--variant', 'a=', '--variant', 'b=', '--json', '--', 'true'],
    keys: ['kind', 'runs'],
  },
  // A Kubernetes object: its schema is the NodeResourceTopology CRD's, versioned by apiVersion.
  'k8s nrt': {
    argv: [...EX, 'k8s', 'nrt', '--node', 'w1', '--json'],
    keys: ['apiVersion', 'kind', 'zones'],
    foreign: 'topology.node.k8s.io/v1alpha2',
  },
};

async function withJson(): Promise<string[]> {
  const out: string[] = [];
  const add = (name: string, c: Command) => {
    if (c.options['json'] !== undefined) out.push(name);
    for (const [s, sub] of Object.entries(c.subcommands ?? {})) add(`${name} ${s}`, sub);
  };
  add('', await OVERVIEW.load());
  for (const [name, e] of Object.entries(COMMANDS)) add(name, await e.load());
  return out;
}

describe('--json', async () => {
  for (const name of await withJson()) {
    it(`numakit ${name || '(overview)'} --json: schemaVersion first, documented keys`, async () => {
      const inv = INVOCATIONS[name];
      assert.ok(
        inv !== undefined,
        `numakit ${name} has --json: add how to run it to INVOCATIONS in this file, and its schema to docs/json.md`,
      );
      if ('elsewhere' in inv) {
        assert.match(
          readFileSync(join(REPO_DIR, inv.elsewhere), 'utf8'),
          /schemaVersion/,
          `${inv.elsewhere} checks the schemaVersion`,
        );
        return;
      }
      await inv.prepare?.();
      const r = await runMain(inv.argv);
      assert.ok((inv.codes ?? [0]).includes(r.code), r.err);
      const obj = JSON.parse(r.out) as Record<string, unknown>;
      for (const k of inv.keys) assert.ok(k in obj, `${name}: key ${k}`);
      if (inv.foreign !== undefined) return assert.equal(obj['apiVersion'], inv.foreign);
      assert.equal(Object.keys(obj)[0], 'schemaVersion');
      assert.equal(obj['schemaVersion'], 1);
      for (const k of inv.keys) assert.ok(k in obj, `${name}: key ${k}`);
    });
  }
});
