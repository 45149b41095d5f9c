// Receive Packet Steering and Receive Flow Steering:
// /sys/class/net/IF/queues/rx-N/{rps_cpus (hex mask), rps_flow_cnt} and
// /proc/sys/net/core/rps_sock_flow_entries. RPS is off when every rps_cpus mask is 0;
// RFS needs both rps_sock_flow_entries and rps_flow_cnt > 0. Documentation/networking/scaling.rst.
import type { RxQueue } from '../model/doctor_input.js';
import { parseCpuMask } from '../model/cpuset.js';
import { absent, present, type Fact } from '../model/fact.js';
import { parseAt, parseInteger } from './parse_util.js';
import { listDir, readFile, readText } from './read.js';
import type { SysRoot } from './root.js';


/** Receive queues of an interface in queue order; [] when it has none (or rps is compiled out). */
export function readRxQueues(root: SysRoot, iface: string): RxQueue[] {
  const dir = `sys/class/net/${iface}/queues`;
  const names = (listDir(root, dir) ?? []).filter((q) => /^rx-\d+$/.test(q));
  names.sort((a, b) => Number(a.slice(3)) - Number(b.slice(3)));
  const out: RxQueue[] = [];
  for (const queue of names) {
    const maskPath = `${dir}/${queue}/rps_cpus`;
    const mask = readText(root, maskPath);
    if (mask === null) continue;
    const flowPath = `${dir}/${queue}/rps_flow_cnt`;
    const flow = readText(root, flowPath);
    out.push({
      queue,
      rpsCpus: parseAt(maskPath, mask, parseCpuMask),
      flowCnt: flow === null ? null : parseAt(flowPath, flow, parseInteger),
    });
  }
  return out;
}

export const RPS_SOCK_FLOW = 'proc/sys/net/core/rps_sock_flow_entries';

export function readRpsSockFlowEntries(root: SysRoot): Fact<number> {
  const r = readFile(root, RPS_SOCK_FLOW);
  return r.ok ? present(RPS_SOCK_FLOW, parseAt(RPS_SOCK_FLOW, r.text, parseInteger)) : absent(RPS_SOCK_FLOW, r.reason);
}
