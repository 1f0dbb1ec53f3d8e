// A summary whose observe() costs the same every time. prom-client's Summary keeps t-digests that
// re-compress every 1,000 observations, so about one call in a thousand stalls the event loop for
// 1-15 ms; on a proxy serving 10k requests/s that stall lands on every request in flight and set
// its p99 latency. Here an observation increments one counter of a log-scale histogram, and the
// quantiles are read from the histogram at scrape time.

/** WindowedSummaryOptions configure a WindowedSummary (prom-client Summary's window semantics). */
export interface WindowedSummaryOptions<L extends string> {
  readonly name: string;
  readonly help: string;
  readonly labelNames?: readonly L[];
  /** percentiles are reported as `quantile` labels, each in [0, 1]. */
  readonly percentiles: readonly number[];
  /** maxAgeSeconds: quantiles cover the observations of about this long (in ageBuckets steps). */
  readonly maxAgeSeconds: number;
  readonly ageBuckets: number;
  /** now returns ms since the epoch. */
  readonly now?: () => number;
}

/** MetricValue is one sample of the registry's JSON form (prom-client's MetricValue). */
export interface MetricValue {
  readonly value: number;
  readonly labels: Record<string, string | number>;
  readonly metricName?: string;
}

// Values are placed in buckets of width 2^(1/8) (about 9%): the estimate returned for a quantile
// is its bucket's geometric middle, within 4.5% of every value in that bucket, and clamped to the
// largest value of the window. Buckets cover 2^-32 .. 2^32; smaller values (and 0) share bucket 0,
// larger ones the last bucket.
const SUB = 8;
const MIN_EXP = -32;
const BUCKETS = (32 - MIN_EXP) * SUB + 2;

function bucketOf(v: number): number {
  if (!(v > 0)) return 0;
  const i = Math.floor((Math.log2(v) - MIN_EXP) * SUB) + 1;
  return i < 1 ? 0 : i >= BUCKETS ? BUCKETS - 1 : i;
}

function bucketMiddle(i: number): number {
  if (i === 0) return 0;
  return 2 ** (MIN_EXP + (i - 0.5) / SUB);
}

/** SummaryChild observes values for one label set. */
export interface SummaryChild {
  observe(value: number): void;
}

class Series implements SummaryChild {
  readonly labels: Record<string, string>;
  readonly #name: string;
  // currentSlot advances the summary's window to now and returns the slot to count in.
  readonly #currentSlot: () => number;
  readonly slots: Float64Array[];
  readonly slotMax: Float64Array;
  count = 0;
  sum = 0;
  /** pending holds raw observations instead of counting them while the summary forwards them. */
  pending: number[] | undefined;

  constructor(name: string, currentSlot: () => number, labels: Record<string, string>, ageBuckets: number) {
    this.#name = name;
    this.#currentSlot = currentSlot;
    this.labels = labels;
    this.slots = Array.from({ length: ageBuckets }, () => new Float64Array(BUCKETS));
    this.slotMax = new Float64Array(ageBuckets).fill(-Infinity);
  }

  observe(value: number): void {
    if (!Number.isFinite(value)) throw new TypeError(`cannot observe ${value} in summary ${this.#name}: not a finite number`);
    if (this.pending !== undefined) {
      this.pending.push(value);
      return;
    }
    const slot = this.#currentSlot();
    this.slots[slot]![bucketOf(value)]!++;
    if (value > this.slotMax[slot]!) this.slotMax[slot] = value;
    this.count++;
    this.sum += value;
  }

  clearSlot(slot: number): void {
    this.slots[slot]!.fill(0);
    this.slotMax[slot] = -Infinity;
  }

  quantiles(percentiles: readonly number[]): number[] {
    const merged = new Float64Array(BUCKETS);
    let total = 0;
    let max = -Infinity;
    for (let s = 0; s < this.slots.length; s++) {
      const slot = this.slots[s]!;
      for (let i = 0; i < BUCKETS; i++) merged[i]! += slot[i]!;
      if (this.slotMax[s]! > max) max = this.slotMax[s]!;
    }
    for (let i = 0; i < BUCKETS; i++) total += merged[i]!;
    if (total === 0) return percentiles.map(() => 0);
    return percentiles.map((p) => {
      if (p >= 1) return max;
      const rank = p * (total - 1);
      let seen = 0;
      for (let i = 0; i < BUCKETS; i++) {
        seen += merged[i]!;
        if (seen > rank) return Math.min(bucketMiddle(i), max);
      }
      return max;
    });
  }
}

/**
 * WindowedSummary is a Prometheus summary (quantiles over a sliding window, cumulative _sum and
 * _count) that a prom-client Registry renders like its own metrics. observe() is O(1) and never
 * allocates; quantiles are within about 4.5% of a value observed in the window (p=1 is exact).
 * Not safe across threads (one per isolate, like every prom-client metric).
 */
export class WindowedSummary<L extends string = never> {
  readonly name: string;
  readonly help: string;
  readonly type = 'summary';
  readonly aggregator = 'sum';
  readonly labelNames: readonly L[];
  readonly #o: WindowedSummaryOptions<L>;
  readonly #now: () => number;
  readonly #slotMs: number;
  readonly #series = new Map<string, Series>();
  #slot = 0;
  #slotEndsMs: number;
  #forwarding = false;

  constructor(o: WindowedSummaryOptions<L>) {
    if (!(Number.isInteger(o.ageBuckets) && o.ageBuckets >= 1)) throw new RangeError(`summary ${o.name}: ageBuckets must be a positive integer, got ${o.ageBuckets}`);
    if (!(o.maxAgeSeconds > 0)) throw new RangeError(`summary ${o.name}: maxAgeSeconds must be positive, got ${o.maxAgeSeconds}`);
    for (const p of o.percentiles) if (!(p >= 0 && p <= 1)) throw new RangeError(`summary ${o.name}: percentile ${p} is outside [0, 1]`);
    if ((o.labelNames ?? []).includes('quantile' as L)) throw new Error(`summary ${o.name}: "quantile" is a reserved label name`);
    this.name = o.name;
    this.help = o.help;
    this.labelNames = o.labelNames ?? [];
    this.#o = o;
    this.#now = o.now ?? Date.now;
    this.#slotMs = (o.maxAgeSeconds * 1000) / o.ageBuckets;
    this.#slotEndsMs = this.#now() + this.#slotMs;
  }

  /** labels returns the child for these label values (in labelNames order); keep it to observe cheaply. */
  labels(...values: string[]): SummaryChild {
    if (values.length !== this.labelNames.length) throw new Error(`summary ${this.name}: expected ${this.labelNames.length} label values, got ${values.length}`);
    const key = values.join('\u0000');
    let s = this.#series.get(key);
    if (s === undefined) {
      const labels: Record<string, string> = {};
      this.labelNames.forEach((n, i) => { labels[n] = values[i]!; });
      s = new Series(this.name, this.#currentSlot, labels, this.#o.ageBuckets);
      if (this.#forwarding) s.pending = [];
      this.#series.set(key, s);
    }
    return s;
  }

  /** observe records a value: observe(v) without labels, observe({name: value, …}, v) with them. */
  observe(labelsOrValue: number | Partial<Record<L, string>>, value?: number): void {
    if (typeof labelsOrValue === 'number') return this.labels().observe(labelsOrValue);
    this.labels(...this.labelNames.map((n) => labelsOrValue[n] ?? '')).observe(value ?? NaN);
  }

  /**
   * forwardObservations makes observe() keep raw values for takeObservations instead of counting
   * them, for a thread whose observations are counted by another thread's summary of the same name.
   */
  forwardObservations(): void {
    this.#forwarding = true;
    for (const s of this.#series.values()) s.pending ??= [];
  }

  /** takeObservations returns and clears the values observed since the last call, per label set. */
  takeObservations(): Array<{ readonly labelValues: string[]; readonly values: number[] }> {
    const out = [];
    for (const s of this.#series.values()) {
      if (s.pending === undefined || s.pending.length === 0) continue;
      out.push({ labelValues: this.labelNames.map((n) => s.labels[n]!), values: s.pending });
      s.pending = [];
    }
    return out;
  }

  /** remove forgets the series of these label values (e.g. a user removed from the config). */
  remove(...values: string[]): void {
    this.#series.delete(values.join('\u0000'));
  }

  // currentSlot advances the window to now (clearing expired slots) and returns the slot to count in.
  readonly #currentSlot = (): number => {
    const now = this.#now();
    if (now < this.#slotEndsMs) return this.#slot;
    const n = this.#o.ageBuckets;
    const steps = Math.min(n, Math.floor((now - this.#slotEndsMs) / this.#slotMs) + 1);
    for (let k = 0; k < steps; k++) {
      this.#slot = (this.#slot + 1) % n;
      for (const s of this.#series.values()) s.clearSlot(this.#slot);
    }
    this.#slotEndsMs += Math.floor((now - this.#slotEndsMs) / this.#slotMs + 1) * this.#slotMs;
    return this.#slot;
  };

  /** get renders the metric for a prom-client Registry. */
  async get(): Promise<{ name: string; help: string; type: string; values: MetricValue[]; aggregator: string }> {
    this.#currentSlot();
    const values: MetricValue[] = [];
    for (const s of this.#series.values()) {
      const q = s.quantiles(this.#o.percentiles);
      this.#o.percentiles.forEach((p, i) => values.push({ labels: { quantile: p, ...s.labels }, value: q[i]! }));
      values.push({ metricName: `${this.name}_sum`, labels: s.labels, value: s.sum });
      values.push({ metricName: `${this.name}_count`, labels: s.labels, value: s.count });
    }
    if (this.labelNames.length === 0 && this.#series.size === 0) {
      this.#o.percentiles.forEach((p) => values.push({ labels: { quantile: p }, value: 0 }));
      values.push({ metricName: `${this.name}_sum`, labels: {}, value: 0 }, { metricName: `${this.name}_count`, labels: {}, value: 0 });
    }
    return { name: this.name, help: this.help, type: this.type, values, aggregator: this.aggregator };
  }

  /** reset zeroes every series (Registry.resetMetrics). */
  reset(): void {
    this.#series.clear();
  }
}
