// The signals that ask numakit to stop a long step and put things back: Ctrl-C and a supervisor's SIGTERM.

export const STOP_SIGNALS = ['SIGINT', 'SIGTERM'] as const;

/**
 * SIGINT and SIGTERM abort a long step (a paced move, a bench) so it can stop cleanly and say what
 * it did; `signal` is the first that came, `off` removes the handlers.
 */
export function stopOnSignals(): { abort: AbortController; readonly signal: string | undefined; off: () => void } {
  const abort = new AbortController();
  let signal: string | undefined;
  const handlers = STOP_SIGNALS.map((name) => {
    const h = () => {
      signal ??= name;
      abort.abort();
    };
    process.on(name, h);
    return () => process.off(name, h);
  });
  return {
    abort,
    get signal() {
      return signal;
    },
    off: () => {
      for (const off of handlers) off();
    },
  };
}
