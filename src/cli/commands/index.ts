// The command table. Each command is imported only when it runs, so `numakit topo` does not
// pay for koffi, YAML or the HTTP server. A new command: one line here and a module exporting a
// default Command (src/cli/options.ts; docs/CONTRIBUTING.md says how). Its --help, the man page,
// shell completion and the help/parser test (test/unit/cli/options_help.test.ts) follow from it.
import type { Command } from '../options.js';

export interface CommandEntry {
  /** One line for `numakit --help`; equal to the command's own summary (a test checks). */
  readonly summary: string;
  /** The command parses every argument itself (no global options after its name). */
  readonly rawArgs?: boolean;
  readonly load: () => Promise<Command>;
}

export const COMMANDS: Record<string, CommandEntry> = {
  topo: {
    summary: 'topology: nodes, CPUs, memory, devices, distances',
    load: async () => (await import('./topo.js')).default,
  },
  snapshot: {
    summary: 'capture the /sys and /proc files numakit reads, for --root',
    load: async () => (await import('./snapshot.js')).default,
  },
  examples: {
    summary: 'list the example machines shipped with numakit (use with --example)',
    load: async () => (await import('./examples.js')).default,
  },
  doctor: {
    summary: 'audit every NUMA pitfall, with evidence and the exact fix',
    load: async () => (await import('./doctor.js')).default,
  },
  stat: {
    summary: 'numastat and more: per-node counters, meminfo, process memory per node, locality',
    load: async () => (await import('./stat.js')).default,
  },
  top: {
    summary: 'live full-screen view: node memory and hit/miss rates, processes by remote memory',
    load: async () => (await import('./top.js')).default,
  },
  run: {
    summary: 'run a command with a NUMA policy and CPU binding (numactl-compatible)',
    rawArgs: true,
    load: async () => (await import('./run.js')).default,
  },
  apply: {
    summary: 'tune the kernel (sysctls, THP, IRQs, services) as a journaled change set; dry run by default',
    load: async () => (await import('./apply.js')).default,
  },
  rollback: {
    summary: 'undo what apply changed (by change set, the last, or all), even after a crash',
    load: async () => (await import('./rollback.js')).default,
  },
  journal: {
    summary: 'list the change sets apply and the agent made: time, source, status',
    load: async () => (await import('./journal.js')).default,
  },
  plan: {
    summary: 'NUMA-aware deployment plans and config files (Spark, YARN, Kubernetes, databases, Redis, JVM, services)',
    load: async () => (await import('./plan.js')).default,
  },
  serve: {
    summary: 'Prometheus exporter and live web dashboard (default http://127.0.0.1:10464/)',
    load: async () => (await import('./serve.js')).default,
  },
  k8s: {
    summary: 'Kubernetes: publish NodeResourceTopology, stop the agent from a preStop hook',
    load: async () => (await import('./k8s.js')).default,
  },
  fleet: {
    summary: 'one report for many hosts: topology classes, findings x hosts, settings that differ',
    load: async () => (await import('./fleet.js')).default,
  },
  bench: {
    summary: 'prove what placement buys: memory matrices (MLC class), A/B runs of a workload, reports',
    load: async () => (await import('./bench.js')).default,
  },
  agent: {
    summary: 'placement daemon: keeps busy processes next to their memory; restores all it changed',
    load: async () => (await import('./agent.js')).default,
  },
  completion: {
    summary: 'shell completion script for bash, zsh or fish',
    load: async () => (await import('./completion.js')).default,
  },
  help: {
    summary: 'help on a command, or the whole manual page (--man)',
    load: async () => (await import('./help.js')).default,
  },
};

/** `numakit` with no command. */
export const OVERVIEW: CommandEntry = {
  summary: 'an overview of this machine and what to try next',
  load: async () => (await import('./overview.js')).default,
};
