// /sys/kernel/mm/ksm/{run,pages_sharing,merge_across_nodes}: Kernel Samepage Merging.
// run: 0 stopped, 1 merging, 2 stopped and unmerged. merge_across_nodes=1 (the default) lets
// ksmd merge identical pages of different nodes into one, so some users read remote memory.
// See Documentation/admin-guide/mm/ksm.rst. Absent on kernels without CONFIG_KSM.
import type { KsmState } from '../model/doctor_input.js';
import { absent, present, type Fact } from '../model/fact.js';
import { parseAt, parseInteger } from './parse_util.js';
import { readFile } from './read.js';
import type { SysRoot } from './root.js';

export const KSM_DIR = 'sys/kernel/mm/ksm';


function intFact(root: SysRoot, path: string): Fact<number> {
  const r = readFile(root, path);
  return r.ok ? present(path, parseAt(path, r.text, parseInteger)) : absent(path, r.reason);
}

export function readKsm(root: SysRoot): KsmState {
  return {
    run: intFact(root, `${KSM_DIR}/run`),
    pagesSharing: intFact(root, `${KSM_DIR}/pages_sharing`),
    mergeAcrossNodes: intFact(root, `${KSM_DIR}/merge_across_nodes`),
  };
}
