// What the documented numakit commands must do when test/unit/docs/docs_commands.test.ts runs
// them: the exit code (default 0) and a line of their output (default: any). A command new in
// a document runs with the defaults; add it here to check the line it should print.
//
// Where a command runs: a command that reads "this machine" runs against example spark-2s
// (--example injected before the command), so its result does not depend on the test host;
// `real` ones run as written because they are about the host or its processes (their PIDs and
// names become the test's own: `subst`). Placeholders in commands (DIR, NAME) become files the
// test prepares: PLACEHOLDERS.
export interface Expect {
  readonly code?: number;
  /** Exit codes any of which is right, where it depends on the host (a file root may or may not read). */
  readonly codes?: readonly number[];
  /** A line of stdout or stderr (of `file` when given: what the command writes). */
  readonly line?: RegExp;
  readonly file?: string;
  /** Run as written: about this machine or its processes, or reading only the files it is given (else on example spark-2s). */
  readonly real?: boolean;
  /** Words replaced before running: PIDs and process names of the reader's machine. */
  readonly subst?: Readonly<Record<string, string>>;
}

/** Replacements for the placeholders documents use; the test prepares what they name. */
export const PLACEHOLDERS: Readonly<Record<string, string>> = { DIR: 'snapdir', NAME: 'spark-2s' };

const self = String(process.pid);
const mine = { '4242': self, redis: 'node', postgres: 'node' };

export const EXPECT: Readonly<Record<string, Expect>> = {
  'numakit examples': { line: /^spark-2s\s/ },
  'numakit --example spark-2s topo': { line: /node 0/ },
  'numakit snapshot server.tar.gz': { line: /wrote \d+ files to server\.tar\.gz/ },
  'numakit --root server.tar.gz doctor --profile spark': { line: /^numakit doctor: .*server\.tar\.gz, profile spark/ },
  'numakit topo': { line: /node 0/ },
  'numakit topo --numactl': { line: /^available: 2 nodes \(0-1\)$/ },
  'numakit topo --json': { line: /"schemaVersion": 1/ },
  'numakit topo --svg topo.svg': { file: 'topo.svg', line: /^<svg / },
  'numakit topo --html topo.html': { file: 'topo.html', line: /<svg / },
  'numakit doctor --profile spark': { line: /^\s+\[numa-balancing\] AutoNUMA is on; the spark profile wants it off$/ },
  'numakit doctor --profile database --markdown > numa-report.md': { line: /^# numakit doctor: example spark-2s$/ },
  'numakit doctor --json --fail-on warning': { line: /"profile": "general"/ },
  'numakit --example spark-2s doctor -v': { line: /^PASSED \(\d+\)$/ },
  'numakit --example spark-2s doctor --profile spark': {
    line: /\[thp\/enabled\] THP enabled is "always"; the spark profile wants never/,
  },
  'numakit --example spark-2s doctor --profile database --placement unpinned --markdown > report.md': {
    line: /^Profile \*\*database\*\* \(placement unpinned: as given with --placement\)/,
  },
  'numakit doctor --profile database': { line: /not checked|NOT CHECKED/ },
  // README's line per example: each shows what its comment says.
  'numakit --example cxl-3node topo': { line: /^node 2 .*memory 128 GiB/ },
  'numakit --example epyc-nps4 topo --numactl': { line: /^ {2}0: {2}10 {2}12 {2}12 {2}12 ?$/ },
  'numakit --example vm-flat-32 doctor': { line: /^ {2}\[vm-vnuma\] VM with 32 vCPUs and 128 GiB but one NUMA node/ },
  'numakit --example lab-2node topo': { line: /^2 nodes, / },
  'numakit --example lab-2node-procs doctor': {
    line: /^ {2}\[low-locality\] \d+ large process\(es\) run away from their memory: remote-app\(147\)/,
  },
  'numakit --example lab-2node-procs stat --procs': { line: /^147 +remote-app .* 0\.15 / },
  'numakit --example lab-3node-cxl topo': { line: /HMAT from node 0/ },
  'numakit --example lab-4node-asym topo --numactl': { line: /^ {2}0: {2}10 {2}16 {2}22 {2}28 ?$/ },
  'numakit --example spark-2s plan spark-standalone': {
    line: /^\| committed on node 0 \(96 GiB\) \| 82 \+ 12 \+ 1 = 95 GiB \(99%\) \| 73 \+ 11 \+ 1 = 85 GiB \(89%\) \|$/,
  },
  'numakit --root snap.tar.gz plan spark-k8s --k8s-node w7 --out plan-w7': {
    line: /^wrote \d+ files to plan-w7; read plan-w7\/PLAN\.md first$/,
  },
  'numakit plan mysql --buffer-pool 48g --huge-pages': {
    line: /^==> \/etc\/systemd\/system\/mysql\.service\.d\/50-numakit-numa\.conf/,
  },
  'numakit --example spark-2s plan mysql --buffer-pool 48g': { line: /^NUMAPolicy=bind$/ },
  "numakit plan service --name ingest --exec '/usr/local/bin/ingest -v' --per-node": { line: /^MemoryMax=88473M$/ },
  'numakit apply --profile database': { line: /^left alone here/ },
  'numakit apply --profile database --placement bound': {
    line: /^  \/proc\/sys\/kernel\/numa_balancing: 1 -> 0  # AutoNUMA off/,
  },
  'numakit --example spark-2s apply --profile spark': {
    line: /^  \/sys\/devices\/system\/cpu\/cpuN\/cpufreq\/scaling_governor for N = 0-63: powersave -> performance/,
  },
  'numakit apply tune.yaml --persist ./out': { line: /^wrote the persistent form for review:$/ },
  'numakit journal': { real: true, line: /no change sets in the journal|^\S+ +\d{4}-/ },
  'numakit stat': { line: /numa_hit/ },
  'numakit stat -n': { line: /Total/ },
  'numakit stat -m': { line: /MemTotal/ },
  'numakit stat -p 4242 -p redis': { real: true, subst: mine, line: /^Per-node process memory usage \(in MBs\)/ },
  'numakit stat -p postgres': {
    real: true,
    subst: { postgres: self },
    line: /^Per-node process memory usage \(in MBs\)/,
  },
  'numakit stat -p 4242 -p postgres': { real: true, subst: mine, line: /^Per-node process memory usage \(in MBs\)/ },
  'numakit stat --json -p 4242': { real: true, subst: mine, line: /"schemaVersion": 1/ },
  // 1 where PID 1's numa_maps is refused (not root, or a container), 0 where it is read.
  'numakit stat -p 1': { real: true, codes: [0, 1], line: /PID 1/ },
  'numakit stat --numastat -m -z': { line: /^Per-node system memory usage \(in MBs\):$/ },
  'numakit stat --numastat -m': { line: /^Per-node system memory usage \(in MBs\):$/ },
  'numakit stat --procs --top 20': { line: /^PID\s+COMM/ },
  'numakit stat --procs': { line: /^PID\s+COMM/ },
  'numakit agent --advise --once': { line: /^numakit agent ready: .*advise only/ },
  'numakit snapshot --processes out': { line: /wrote \d+ files to out/ },
  'numakit run -m 0 -C 1 --show': { real: true, line: /^policy: bind$/ },
  'numakit k8s nrt --node w7 --topology-manager-policy single-numa-node --reserved-cpus 0-1': {
    line: /^kind: NodeResourceTopology$/,
  },
  'numakit fleet report gathered/': { real: true, line: /2 host/ },
  'numakit fleet report gathered/ --html > fleet.html': { real: true, line: /<html|<!doctype/i },
  'numakit fleet report --html gathered/ > fleet.html': { real: true, line: /<html|<!doctype/i },
  'numakit fleet report fleet/': { real: true, line: /2 host/ },
  'numakit --root DIR topo': { line: /node 0/ },
  'numakit --example NAME topo': { line: /node 0/ },
};
