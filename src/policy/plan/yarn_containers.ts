// What YARN gives a Spark application's containers. The ResourceManager's scheduler rounds
// every request up to a multiple of yarn.scheduler.minimum-allocation-mb (the Capacity
// Scheduler's DefaultResourceCalculator; 1024 by default), so a request of 896 MB takes a
// 1024 MB container. Spark asks for heap + overhead; when the overhead is not set it is
// max(10% of the heap, 384 MiB) (Spark's MEMORY_OVERHEAD_FACTOR and MEMORY_OVERHEAD_MIN).
// The ApplicationMaster is a container too: in client mode it is a small JVM of its own
// (spark.yarn.am.memory, default 512m, spark.yarn.am.cores 1); in cluster mode the driver runs
// in it (spark.driver.memory, default 1g, spark.driver.cores 1).

export type DeployMode = 'client' | 'cluster';

export const MIN_ALLOCATION_MB = 1024;
export const OVERHEAD_FACTOR = 0.1;
export const OVERHEAD_MIN_MB = 384;
/** Spark's defaults for the AM's heap: spark.yarn.am.memory (client), spark.driver.memory (cluster). */
export const AM_MEMORY_DEFAULT_MB: Record<DeployMode, number> = { client: 512, cluster: 1024 };

/** A request rounded up as the scheduler does: a whole number of minimum allocations, at least one. */
export function yarnContainerMb(requestMb: number, minAllocationMb: number): number {
  return Math.max(1, Math.ceil(requestMb / minAllocationMb)) * minAllocationMb;
}

/** Spark's default overhead for a heap it is not told the overhead of. */
export function defaultOverheadMb(heapMb: number): number {
  return Math.max(Math.floor(heapMb * OVERHEAD_FACTOR), OVERHEAD_MIN_MB);
}

export interface AmContainer {
  readonly mode: DeployMode;
  /** The Spark keys that size it in this mode. */
  readonly memoryKey: string;
  readonly overheadKey: string;
  readonly coresKey: string;
  readonly heapMb: number;
  readonly overheadMb: number;
  readonly cores: number;
  /** heap + overhead, what Spark asks for. */
  readonly requestMb: number;
  /** What the scheduler gives: the request rounded up to the minimum allocation. */
  readonly containerMb: number;
}

export function amContainer(mode: DeployMode, heapMb: number, minAllocationMb: number): AmContainer {
  const overheadMb = defaultOverheadMb(heapMb);
  const requestMb = heapMb + overheadMb;
  return {
    mode,
    memoryKey: mode === 'client' ? 'spark.yarn.am.memory' : 'spark.driver.memory',
    overheadKey: mode === 'client' ? 'spark.yarn.am.memoryOverhead' : 'spark.driver.memoryOverhead',
    coresKey: mode === 'client' ? 'spark.yarn.am.cores' : 'spark.driver.cores',
    heapMb,
    overheadMb,
    cores: 1,
    requestMb,
    containerMb: yarnContainerMb(requestMb, minAllocationMb),
  };
}
