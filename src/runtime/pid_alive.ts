// Whether a process exists, by signal 0 (nothing is sent): a lock holder, a daemon's pid file.

/** True when `pid` exists (EPERM: it exists but belongs to another user). */
export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}
