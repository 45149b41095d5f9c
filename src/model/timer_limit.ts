// The longest wait numakit accepts for a timer-driven option (--interval, --watch, --window ...):
// a JavaScript timer holds at most 2^31 - 1 ms (24.8 days) and silently fires after 1 ms for
// anything longer, which turned `agent --interval 999h` into a pass every millisecond. Longer
// values are refused by name instead; 24 days is the round figure below the limit.
export const MAX_WAIT_MS = 24 * 24 * 3_600_000;
export const MAX_WAIT_TEXT = '576h (24 days)';
