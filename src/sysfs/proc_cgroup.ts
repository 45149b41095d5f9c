// /proc/PID/cgroup and the cpuset that restricts a process: cgroup v2 ("0::/path", cpuset.cpus
// set somewhere on the path) or v1 ("N:cpuset:/path" under sys/fs/cgroup/cpuset; "N:memory:/path"
// is the v1 memory controller's, under sys/fs/cgroup/memory). An empty
// cpuset.cpus in v2 means "inherit": the nearest ancestor with a value restricts.
// Documentation/admin-guide/cgroup-v2.rst (Cpuset).
import { SysfsParseError } from '../model/errors.js';

export interface CgroupPaths {
  readonly v2: string | null;
  readonly cpusetV1: string | null;
  readonly memoryV1: string | null;
}

export function parseProcCgroup(text: string): CgroupPaths {
  let v2: string | null = null;
  let cpusetV1: string | null = null;
  let memoryV1: string | null = null;
  text.split('\n').forEach((line, i) => {
    if (line.trim() === '') return;
    const m = /^(\d+):([^:]*):(.*)$/.exec(line);
    if (!m) throw new SysfsParseError('not a "id:controllers:path" cgroup line', { line: i + 1, text: line });
    if (m[1] === '0' && m[2] === '') v2 = m[3]!;
    else {
      const controllers = m[2]!.split(',');
      if (controllers.includes('cpuset')) cpusetV1 = m[3]!;
      if (controllers.includes('memory')) memoryV1 = m[3]!;
    }
  });
  return { v2, cpusetV1, memoryV1 };
}
