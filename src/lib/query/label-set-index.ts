// Numbering distinct label sets (or their matching signatures) without a string key per set.

import type { VectorMatching } from '../promql/index.ts';
import type { Labels } from '../storageapi/index.ts';
import { METRIC_NAME } from './labels.ts';

/**
 * Which labels of a set count: every label, or a vector-matching signature's: with `on`, the
 * listed names; without (`ignoring`), every name but the listed ones and the metric name.
 */
export type LabelFilter =
  | { readonly kind: 'all' }
  | { readonly kind: 'signature'; readonly on: boolean; readonly names: ReadonlySet<string> };

export const ALL_LABELS: LabelFilter = { kind: 'all' };

/** signatureFilter is the filter of a binary operation's matching (none: ignoring nothing). */
export function signatureFilter(m: VectorMatching | null): LabelFilter {
  return { kind: 'signature', on: m?.on ?? false, names: new Set(m?.labels ?? []) };
}

/**
 * LabelSetIndex gives each distinct label set, as seen through a filter, a number (0, 1, … in
 * order of first appearance), as a Map keyed by a string of the kept names and values would, but without
 * building a key string per set: binary matching of two vectors of thousands of series built and
 * flattened one such string per series and side (the largest allocation of i:binary_ratio at
 * L). A hash of the kept names and values picks a bucket; the sets in a bucket are compared
 * label by label, so a hash collision never merges two different sets.
 */
export class LabelSetIndex {
  readonly #all: boolean;
  readonly #on: boolean;
  readonly #names: ReadonlySet<string>;
  // hash -> first set of its bucket; #next chains the bucket; #sets holds each set as first seen.
  readonly #heads = new Map<number, number>();
  readonly #next: number[] = [];
  readonly #sets: Labels[] = [];

  constructor(filter: LabelFilter) {
    this.#all = filter.kind === 'all';
    this.#on = filter.kind === 'signature' && filter.on;
    this.#names = filter.kind === 'signature' ? filter.names : new Set();
  }

  /** size is the number of distinct sets added. */
  get size(): number {
    return this.#sets.length;
  }

  #keeps(name: string): boolean {
    if (this.#all) return true;
    const listed = this.#names.has(name);
    return this.#on ? listed : !listed && name !== METRIC_NAME;
  }

  /** hash is the bucket of ls (pass it to find and add to hash a set once for both). */
  hash(ls: Labels): number {
    // FNV-1a over the kept names and values, each followed by a code unit labels cannot hold
    // apart (0xffff), kept within V8's small integers.
    let h = 0x811c9dc5;
    for (let i = 0; i < ls.length; i++) {
      const l = ls[i]!;
      if (!this.#keeps(l.name)) continue;
      h = hashText(h, l.name);
      h = hashText(h, l.value);
    }
    return h & 0x3fffffff;
  }

  /** find returns the number of the set equal to ls through the filter, or -1. */
  find(ls: Labels, h = this.hash(ls)): number {
    for (let k = this.#heads.get(h) ?? -1; k >= 0; k = this.#next[k]!) {
      if (this.#same(this.#sets[k]!, ls)) return k;
    }
    return -1;
  }

  /** add returns the number of the set equal to ls through the filter, numbering it when new. */
  add(ls: Labels, h = this.hash(ls)): number {
    const head = this.#heads.get(h) ?? -1;
    for (let k = head; k >= 0; k = this.#next[k]!) {
      if (this.#same(this.#sets[k]!, ls)) return k;
    }
    const k = this.#sets.length;
    this.#sets.push(ls);
    this.#next.push(head);
    this.#heads.set(h, k);
    return k;
  }

  // same compares the kept labels of a and b in order (label sets are sorted by name).
  #same(a: Labels, b: Labels): boolean {
    let i = 0;
    let j = 0;
    for (;;) {
      while (i < a.length && !this.#keeps(a[i]!.name)) i++;
      while (j < b.length && !this.#keeps(b[j]!.name)) j++;
      if (i === a.length || j === b.length) return i === a.length && j === b.length;
      const x = a[i++]!;
      const y = b[j++]!;
      if (x.name !== y.name || x.value !== y.value) return false;
    }
  }
}

function hashText(h: number, s: string): number {
  for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 0x01000193);
  return Math.imul(h ^ 0xffff, 0x01000193);
}
