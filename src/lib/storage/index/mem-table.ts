/**
 * MemTable holds index items not yet written to a part, plus exact-match maps for the lookups
 * the write path makes on every new series (those must not wait for a sort). Items are sorted
 * lazily when a reader asks; the sorted array handed out is never mutated afterwards, so a reader
 * may keep it while writers go on adding.
 */
export class MemTable {
  #pending: string[] = [];
  #sorted: readonly string[] = [];
  #bytes = 0;
  /** seriesIds maps a series-by-labels prefix (tenant + labels) to the newest series ID created for it. */
  readonly seriesIds = new Map<string, number>();
  /** tenantSeries counts series created in this table per tenant key. */
  readonly tenantSeries = new Map<string, number>();
  /** labels maps a series ID to its (tenant key, labels key). */
  readonly labels = new Map<number, { readonly tenant: string; readonly labels: string }>();
  /** days holds the day-series items of this table. */
  readonly days = new Set<string>();
  /** maxSeriesId is the highest series ID known when the table was frozen (set by the owner). */
  maxSeriesId = 0;

  add(item: string): void {
    this.#pending.push(item);
    this.#bytes += item.length + 40;
  }

  /** sorted returns all items in order without duplicates. */
  sorted(): readonly string[] {
    if (this.#pending.length === 0) return this.#sorted;
    const add = this.#pending.sort();
    this.#pending = [];
    const old = this.#sorted;
    const out: string[] = [];
    let i = 0;
    let j = 0;
    let last: string | undefined;
    while (i < old.length || j < add.length) {
      const v = j >= add.length || (i < old.length && old[i]! <= add[j]!) ? old[i++]! : add[j++]!;
      if (v !== last) out.push(v);
      last = v;
    }
    this.#sorted = out;
    return out;
  }

  /** itemsCount counts items added (duplicates included until the next sort). */
  get itemsCount(): number {
    return this.#sorted.length + this.#pending.length;
  }

  /** bytes estimates the heap the items use. */
  get bytes(): number {
    return this.#bytes;
  }
}
