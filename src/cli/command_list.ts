// The commands, as `numakit --help`, the man page's list, the overview's "next:" and shell
// completion name them: one line each, written once here. Pure data that imports nothing, so
// any command may read it; src/cli/commands/index.ts adds how each is loaded.

export interface CommandInfo {
  /** One line for `numakit --help`, the man page and completion (each command's own summary). */
  readonly summary: string;
  /** The command parses every argument itself (no global options after its name). */
  readonly rawArgs?: boolean;
}

export const COMMAND_LIST = {
  topo: { summary: 'topology: nodes, CPUs, memory, devices, distances' },
  snapshot: { summary: 'capture the /sys and /proc files numakit reads, for --root' },
  examples: { summary: 'list the example machines shipped with numakit (use with --example)' },
  doctor: { summary: 'audit every NUMA pitfall, with evidence and the exact fix' },
  stat: { summary: 'numastat and more: per-node counters, meminfo, process memory per node, locality' },
  top: { summary: 'live full-screen view: node memory and hit/miss rates, processes by remote memory' },
  run: { summary: 'run a command with a NUMA policy and CPU binding (numactl-compatible)', rawArgs: true },
  migrate: { summary: "move a process's memory between nodes (migratepages-compatible), at once or paced" },
  apply: { summary: 'tune the kernel (sysctls, THP, IRQs, services) as a journaled change set; dry run by default' },
  rollback: { summary: 'undo what apply changed (by change set, the last, or all), even after a crash' },
  journal: { summary: 'list the change sets apply and the agent made: time, source, status' },
  plan: {
    summary: 'NUMA-aware deployment plans and config files (Spark, YARN, Kubernetes, databases, Redis, JVM, services)',
  },
  serve: { summary: 'Prometheus exporter and live web dashboard (default http://127.0.0.1:10464/)' },
  k8s: { summary: 'Kubernetes: publish NodeResourceTopology, stop the agent from a preStop hook' },
  fleet: { summary: 'one report for many hosts: topology classes, findings x hosts, settings that differ' },
  bench: { summary: 'prove what placement buys: memory matrices (MLC class), A/B runs of a workload, reports' },
  agent: { summary: 'placement daemon: keeps busy processes next to their memory; restores all it changed' },
  completion: { summary: 'shell completion script for bash, zsh or fish' },
  help: { summary: 'help on a command, or the whole manual page (--man)' },
} as const satisfies Record<string, CommandInfo>;

export type CommandName = keyof typeof COMMAND_LIST;

/** `numakit` with no command. */
export const OVERVIEW_INFO: CommandInfo = { summary: 'an overview of this machine and what to try next' };
