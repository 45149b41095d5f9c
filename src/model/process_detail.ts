// One process in detail (numakit top's drill-down): read by discover/top_detail.ts, drawn by render/stat_top.ts.

export interface DetailThread {
  readonly tid: number;
  readonly comm: string;
  readonly state: string;
  readonly cpu: number;
  readonly node: number | null;
  readonly cpuSeconds: number;
}

export interface DetailMapping {
  readonly address: string;
  /** file=PATH, heap, stack, anon, huge ... as numa_maps names it. */
  readonly what: string;
  readonly policy: string;
  /** Node id -> bytes. */
  readonly nodes: Readonly<Record<string, number>>;
  readonly totalBytes: number;
}

export interface ProcessDetail {
  readonly pid: number;
  readonly comm: string;
  readonly cgroup: string | null;
  readonly threads: readonly DetailThread[];
  /** Largest first; null when numa_maps could not be read (another user's process). */
  readonly mappings: readonly DetailMapping[] | null;
  readonly mappingsWhy: string;
}
