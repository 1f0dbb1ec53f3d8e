import { FreeList } from '../common/free-list.ts';

/** SeriesScratch gathers the samples of one series from several sources; reused across series. */
export class SeriesScratch {
  ts: Float64Array;
  vals: Float64Array;
  n = 0;
  /**
   * mayHoldNaN: false while every value gathered is known not to be NaN (block-decode.ts
   * NaNReport); whoever appends values it cannot vouch for sets it.
   */
  mayHoldNaN = false;

  constructor(capacity = 1024) {
    this.ts = new Float64Array(capacity);
    this.vals = new Float64Array(capacity);
  }

  reset(): void {
    this.n = 0;
    this.mayHoldNaN = false;
  }

  /** ensure makes room for extra more samples after n. */
  ensure(extra: number): void {
    const need = this.n + extra;
    if (need <= this.ts.length) return;
    let cap = this.ts.length * 2;
    while (cap < need) cap *= 2;
    const ts = new Float64Array(cap);
    ts.set(this.ts.subarray(0, this.n));
    const vals = new Float64Array(cap);
    vals.set(this.vals.subarray(0, this.n));
    this.ts = ts;
    this.vals = vals;
  }

  /** firstAtOrAfter returns the index of the first sorted sample with timestamp >= t (n if none). */
  firstAtOrAfter(t: number): number {
    return this.#search(t, false);
  }

  /** firstAfter returns the index of the first sorted sample with timestamp > t (n if none). */
  firstAfter(t: number): number {
    return this.#search(t, true);
  }

  #search(t: number, after: boolean): number {
    let lo = 0;
    let hi = this.n;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      const v = this.ts[mid]!;
      if (v < t || (after && v === t)) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  /** keepRange drops samples outside [minTs, maxTs] (samples must be sorted). */
  keepRange(minTs: number, maxTs: number): void {
    let lo = 0;
    while (lo < this.n && this.ts[lo]! < minTs) lo++;
    let hi = this.n;
    while (hi > lo && this.ts[hi - 1]! > maxTs) hi--;
    if (lo > 0) {
      this.ts.copyWithin(0, lo, hi);
      this.vals.copyWithin(0, lo, hi);
    }
    this.n = hi - lo;
  }
}

/**
 * ScratchPool lends SeriesScratch objects to searches. A fresh scratch is two zero-filled 8 KiB
 * arrays, grown (and copied) for longer series, freed by a garbage collection: for a query of a
 * few series that was as much as reading them (in-process, i:one_series and r:one_series at S).
 * It keeps at most maxKept scratches of at most maxCapacity samples; one that grew larger is
 * dropped. A scratch given back must no longer be read (SearchQuery.borrow's views included).
 */
export class ScratchPool extends FreeList<SeriesScratch> {
  readonly #maxCapacity: number;

  constructor(maxKept = 4, maxCapacity = 16 * 1024) {
    super(() => new SeriesScratch(), maxKept);
    this.#maxCapacity = maxCapacity;
  }

  /** take returns an empty scratch, a kept one when there is one. */
  override take(): SeriesScratch {
    const s = super.take();
    s.reset();
    return s;
  }

  /** give hands s back once its user is done with it. */
  override give(s: SeriesScratch): void {
    if (s.ts.length <= this.#maxCapacity) super.give(s);
  }
}
