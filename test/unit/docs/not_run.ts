// The documented commands that cannot run inside the unit suite, each with why: they build or
// test numakit itself, act on this machine or on others, or run until stopped. Everything else
// README.md and docs/*.md show runs in test/unit/docs/docs_commands.test.ts; a command matching
// none of these and not runnable fails that test, so nothing is skipped silently.
export interface NotRun {
  readonly match: RegExp;
  readonly why: string;
}

export const NOT_RUN: readonly NotRun[] = [
  {
    match: /^npm (ci|test|start|pack|install|run (build|build:sea|test:lab|test:dist|lab|capture|bench|lint))\b/,
    why: 'builds, packs or tests numakit itself (npm test is what runs this test; the lab ones boot QEMU guests): CI runs npm ci, npm test, npm run test:dist and npm run test:lab (.ci/run)',
  },
  {
    match: /^(npm link|node dist\/cli\/numakit\.cjs)\b/,
    why: "runs numakit from the clone: npm link changes the global prefix of the test host; the package's executable is what test/package/ runs after npm pack",
  },
  {
    match: /^sudo numakit (apply .*--yes|rollback)\b/,
    why: 'changes the kernel settings of this machine, as root (apply and rollback run on fake systems in test/unit/apply/, for real in lab guests)',
  },
  {
    match: /^(scp|kubectl|ansible-playbook|podman|cd deploy\/ansible)\b/,
    why: 'acts on other machines (a server, a Kubernetes cluster, an Ansible inventory) or builds an image: test/unit/fleet/ validates the manifests, playbooks and Containerfile',
  },
  {
    match: /^numakit (.* )?(apply|rollback)\b.*(--yes|--all)|^numakit rollback$/,
    why: 'changes the kernel settings of this machine, the test host (apply and rollback run on fake systems in test/unit/apply/, for real in lab guests)',
  },
  {
    match: /^numakit (.* )?agent( --config| --tune| --unit| restore|$)/,
    why: "the placement daemon moves this machine's processes and runs until stopped (agent --advise --once runs here; test/unit/agent/ and the lab run the rest)",
  },
  {
    match: /^numakit (.* )?serve\b/,
    why: 'an HTTP server that runs until stopped (test/unit/serve/ starts it on port 0)',
  },
  {
    match: /^numakit (.* )?top$/,
    why: 'a full-screen view that runs until q (test/unit/stat/top_pty.test.ts drives it in a pty)',
  },
  { match: /^numakit (.* )?stat .*--watch\b/, why: 'prints until Ctrl-C (test/unit/stat/watch.test.ts)' },
  {
    match: /^node bench\//,
    why: 'a benchmark: starts numakit many times over minutes and prints ratios against a baseline measured in the same run (benchmarks are not tests)',
  },
  {
    match: /^numakit (.* )?bench (mem|ab|compare)\b/,
    why: "measures this machine's memory or runs workloads for seconds to minutes, or compares such results (test/unit/bench/ runs them with small sizes)",
  },
  {
    match: /^numakit (.* )?run .*(-- |myapp$)/,
    why: "runs a program of the reader's (java, redis-server, myapp, network-server, db), bound to devices and paths of their machine (test/unit/run/ runs each form)",
  },
  {
    match: /^numakit (.* )?run .*(--shm|-f) \/(var|dev)\//,
    why: "sets a policy on a database's SysV segment or a hugetlbfs file of the reader's machine (test/unit/run/shm.test.ts runs both forms on a tmpfs file and a segment it makes and removes)",
  },
  {
    match: /^numakit migrate 4242\b/,
    why: "moves the memory of a process of the reader's (pid 4242) between nodes of their machine (test/unit/migrate/ runs each form on a child process; the lab against migratepages on two nodes)",
  },
  {
    match: /^numakit completion \w+ > \/etc\//,
    why: 'installs into /etc/bash_completion.d (test/unit/cli/completion_man.test.ts runs the scripts)',
  },
  {
    match: /^numakit k8s nrt --apply\b/,
    why: 'writes to a Kubernetes API server (test/unit/fleet/ checks the object it writes)',
  },
  { match: / \.\.\.( |$)/, why: 'elides options ("...") that the command above it shows in full' },
];

export function notRun(text: string): NotRun | undefined {
  return NOT_RUN.find((n) => n.match.test(text));
}
