// Long-lived metrics of a daemon (the agent's moves and decisions), kept between scrapes and
// rendered as families beside the ones a scrape reads fresh. Counters only go up.
import { family, s, type Family, type MetricType } from './exposition.js';

type Labels = Readonly<Record<string, string>>;

class Vec {
  protected readonly values = new Map<string, { labels: Labels; value: number }>();

  constructor(
    readonly name: string,
    readonly type: MetricType,
    readonly help: string,
  ) {}

  protected entry(labels: Labels): { labels: Labels; value: number } {
    const k = JSON.stringify(Object.entries(labels).sort());
    let e = this.values.get(k);
    if (e === undefined) this.values.set(k, (e = { labels, value: 0 }));
    return e;
  }

  /** Drops the series whose labels `keep` refuses (the thing they describe is gone). */
  retain(keep: (labels: Labels) => boolean): void {
    for (const [k, e] of this.values) if (!keep(e.labels)) this.values.delete(k);
  }

  /** Series it holds now. */
  get size(): number {
    return this.values.size;
  }

  family(): Family {
    return family(
      this.name,
      this.type,
      this.help,
      [...this.values.values()].map((e) => s(e.value, e.labels)),
    );
  }
}

export class CounterVec extends Vec {
  constructor(name: string, help: string, initial: Labels[] = []) {
    super(name, 'counter', help);
    for (const l of initial) this.entry(l);
  }

  inc(labels: Labels = {}, by = 1): void {
    if (!(by >= 0)) throw new Error(`${this.name}: a counter cannot go down (${by})`);
    this.entry(labels).value += by;
  }

  /** A kernel counter's value as read (it counts since boot, not since this process started). */
  setTotal(labels: Labels, value: number): void {
    this.entry(labels).value = value;
  }
}

export class GaugeVec extends Vec {
  constructor(name: string, help: string) {
    super(name, 'gauge', help);
  }

  set(labels: Labels, value: number): void {
    this.entry(labels).value = value;
  }

  reset(): void {
    this.values.clear();
  }
}

/** A ring of the last `size` items (the agent's recent decisions). */
export class Recent<T> {
  private readonly items: T[] = [];

  constructor(private readonly size: number) {}

  push(x: T): void {
    this.items.push(x);
    if (this.items.length > this.size) this.items.shift();
  }

  list(): T[] {
    return [...this.items];
  }
}
