// Receive Packet Steering and Receive Flow Steering:
// /sys/class/net/IF/queues/rx-N/{rps_cpus (hex mask), rps_flow_cnt} and
// /proc/sys/net/core/rps_sock_flow_entries. RPS is off when every rps_cpus mask is 0;
// RFS needs both rps_sock_flow_entries and rps_flow_cnt > 0. Documentation/networking/scaling.rst.
import type { RxQueue } from '../model/doctor_input.js';
import { parseCpuMask } from '../model/cpuset.js';
import type { Fact } from '../model/fact.js';
import { parseCount } from './parse_util.js';
import { listDir } from './read.js';
import { readFact, readParsed } from './read_parsed.js';
import type { SysRoot } from './root.js';

/** Receive queues of an interface in queue order; [] when it has none (or rps is compiled out). */
export function readRxQueues(root: SysRoot, iface: string): RxQueue[] {
  const dir = `sys/class/net/${iface}/queues`;
  const names = (listDir(root, dir) ?? []).filter((q) => /^rx-\d{1,6}$/.test(q));
  names.sort((a, b) => Number(a.slice(3)) - Number(b.slice(3)));
  const out: RxQueue[] = [];
  for (const queue of names) {
    const rpsCpus = readParsed(root, `${dir}/${queue}/rps_cpus`, parseCpuMask);
    if (rpsCpus === null) continue;
    out.push({ queue, rpsCpus, flowCnt: readParsed(root, `${dir}/${queue}/rps_flow_cnt`, parseCount) });
  }
  return out;
}

export const RPS_SOCK_FLOW = 'proc/sys/net/core/rps_sock_flow_entries';

export function readRpsSockFlowEntries(root: SysRoot): Fact<number> {
  return readFact(root, RPS_SOCK_FLOW, parseCount);
}
