// The global migration budget (--max-migrate-mbps) as a token bucket: it fills at the rate,
// up to one interval's worth. A move fits when the bucket holds its bytes; a move larger than a
// full bucket is allowed when the bucket is full and leaves it in debt, so the average rate
// over time stays at or under the budget and a large process is never starved. Pure.

export interface Budget {
  /** Bytes that may be moved now; negative = debt from an oversized move. */
  readonly tokens: number;
  readonly atMs: number;
}

export interface BudgetOptions {
  /** MB/s (10^6 bytes); 0 = unlimited. */
  readonly mbps: number;
  /** Capacity of the bucket, in seconds of the rate (the agent's interval). */
  readonly burstSeconds: number;
}

const capacity = (o: BudgetOptions) => o.mbps * 1e6 * o.burstSeconds;

/** A full bucket at `nowMs`. */
export function newBudget(nowMs: number, o: BudgetOptions): Budget {
  return { tokens: capacity(o), atMs: nowMs };
}

export function refill(b: Budget, nowMs: number, o: BudgetOptions): Budget {
  const added = (o.mbps * 1e6 * Math.max(0, nowMs - b.atMs)) / 1000;
  return { tokens: Math.min(capacity(o), b.tokens + added), atMs: nowMs };
}

/** The bucket after spending `bytes`, or null when the move must wait. */
export function spend(b: Budget, bytes: number, o: BudgetOptions): Budget | null {
  if (o.mbps <= 0 || bytes === 0) return b;
  if (b.tokens >= bytes || b.tokens >= capacity(o)) return { ...b, tokens: b.tokens - bytes };
  return null;
}
