// /sys/kernel/mm/ksm/{run,pages_sharing,merge_across_nodes}: Kernel Samepage Merging.
// run: 0 stopped, 1 merging, 2 stopped and unmerged. merge_across_nodes=1 (the default) lets
// ksmd merge identical pages of different nodes into one, so some users read remote memory.
// See Documentation/admin-guide/mm/ksm.rst. Absent on kernels without CONFIG_KSM.
import type { KsmState } from '../model/doctor_input.js';
import type { Fact } from '../model/fact.js';
import { integerIn, parseCount } from './parse_util.js';
import { readFact } from './read_parsed.js';
import type { SysRoot } from './root.js';

export const KSM_DIR = 'sys/kernel/mm/ksm';

export function readKsm(root: SysRoot): KsmState {
  const run: Fact<number> = readFact(root, `${KSM_DIR}/run`, integerIn(0, 2));
  return {
    run,
    pagesSharing: readFact(root, `${KSM_DIR}/pages_sharing`, parseCount),
    mergeAcrossNodes: readFact(root, `${KSM_DIR}/merge_across_nodes`, integerIn(0, 1)),
  };
}
