// A wait that a signal or a key can end early. Its timer is cleared either way: a timer still
// pending after SIGTERM keeps Node running until it fires (`stat --watch 1000` then ignored
// SIGTERM for up to 1000 s).
export interface Wait {
  readonly done: Promise<void>;
  /** Ends the wait now (idempotent). */
  wake(): void;
}

export function wakeableWait(ms: number): Wait {
  let wake: () => void = () => {};
  const done = new Promise<void>((resolve) => {
    const timer = setTimeout(end, ms);
    function end() {
      clearTimeout(timer);
      resolve();
    }
    wake = end;
  });
  return { done, wake: () => wake() };
}
