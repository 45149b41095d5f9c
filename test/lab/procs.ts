// Which processes are still running in a process group (zombies excluded: a killed qemu whose
// parent `timeout` died first is reparented and may stay a zombie until it is reaped).
import { readdirSync, readFileSync } from 'node:fs';

/** Live (non-zombie) pids whose process group is `pgid`. */
export function liveGroupMembers(pgid: number): number[] {
  const pids: number[] = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    let stat: string;
    try {
      stat = readFileSync(`/proc/${name}/stat`, 'utf8');
    } catch {
      continue; // exited while scanning
    }
    // Fields after the ")" that ends comm (comm may contain spaces): state ppid pgrp ...
    const [state, , pgrp] = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    if (Number(pgrp) === pgid && state !== 'Z' && state !== 'X') pids.push(Number(name));
  }
  return pids;
}

/** Polls until no live process is left in the group, or `timeoutMs` passes; true when gone. */
export async function waitGroupGone(pgid: number, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (liveGroupMembers(pgid).length === 0) return true;
    if (Date.now() > deadline) return false;
    await new Promise((r) => setTimeout(r, 50));
  }
}
