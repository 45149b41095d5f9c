// Raw options -> spark-yarn options: sizing, paths, the deploy mode and the AM's heap (Spark's
// default for that mode unless --am-memory), and the scheduler's minimum allocation.
import { UsageError } from '../../model/errors.js';
import { parseSize } from '../../model/size.js';
import { type RawOptions, sparkSizingOptions, str } from './options.js';
import type { SparkYarnOptions } from './spark_yarn.js';
import { intIn, safeName, safePath } from './validate.js';
import { AM_MEMORY_DEFAULT_MB, type DeployMode, MIN_ALLOCATION_MB } from './yarn_containers.js';

const MiB = 1024 ** 2;

function deployMode(raw: RawOptions): DeployMode {
  const v = str(raw, 'deploy-mode', 'client');
  if (v !== 'client' && v !== 'cluster')
    throw new UsageError(`--deploy-mode: '${v}' refused: expected client or cluster`);
  return v;
}

function amMemoryMb(raw: RawOptions, mode: DeployMode): number {
  const v = raw['am-memory'];
  if (typeof v !== 'string') return AM_MEMORY_DEFAULT_MB[mode];
  const bytes = parseSize(v, '--am-memory', { positive: true });
  if (bytes % MiB !== 0 || bytes < 32 * MiB)
    throw new UsageError(`--am-memory '${v}': expected whole MiB, at least 32M (e.g. 512m, 2g)`);
  return bytes / MiB;
}

export function sparkYarnOptions(raw: RawOptions): SparkYarnOptions {
  const mode = deployMode(raw);
  return {
    ...sparkSizingOptions(raw),
    sparkHome: safePath(str(raw, 'spark-home', '/opt/spark'), '--spark-home'),
    hadoopConf: safePath(str(raw, 'hadoop-conf', '/etc/hadoop/conf'), '--hadoop-conf'),
    group: safeName(str(raw, 'group', 'hadoop'), '--group'),
    deployMode: mode,
    amMemoryMb: amMemoryMb(raw, mode),
    minAllocationMb: intIn(str(raw, 'min-allocation', `${MIN_ALLOCATION_MB}`), '--min-allocation', 1, 65536),
  };
}
