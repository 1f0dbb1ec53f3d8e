import type { SeriesResult } from '../../lib/query/index.ts';

// The `[seconds,"` text that starts every point of a matrix answer, once per distinct timestamp
// of the answer, found by position instead of hashing: the series of a range query share one
// grid of steps, so a pointer that moves forward along the sorted timestamps finds the next
// point's text in one comparison (a Map keyed by the double cost a hash lookup per point, the
// largest single item of rendering a 1,440-step answer).

/** TimestampPrefixes holds the sorted distinct timestamps of a matrix and their point prefixes. */
export class TimestampPrefixes {
  /** ts: distinct timestamps, ascending. */
  readonly ts: Float64Array;
  /** bytes[starts[k] .. starts[k+1]) is the prefix of ts[k]. */
  readonly bytes: Buffer;
  readonly starts: Uint32Array;
  /** maxLength: the longest prefix, in bytes. */
  readonly maxLength: number;

  constructor(matrix: readonly SeriesResult[], format: (ms: number) => string) {
    this.ts = distinctTimestamps(matrix);
    const texts = Array.from(this.ts, (t) => `[${format(t)},"`);
    this.starts = new Uint32Array(texts.length + 1);
    let at = 0;
    let max = 0;
    for (let k = 0; k < texts.length; k++) {
      this.starts[k] = at;
      at += texts[k]!.length; // ASCII: one byte per character
      if (texts[k]!.length > max) max = texts[k]!.length;
    }
    this.starts[texts.length] = at;
    this.bytes = Buffer.from(texts.join(''), 'latin1');
    this.maxLength = max;
  }

  /**
   * find returns the index of timestamp t, one of ts. It looks at and after from first (the
   * next point of an ascending series, mostly at from itself), then from the start.
   */
  find(from: number, t: number): number {
    const k = seek(this.ts, from, t);
    return k < this.ts.length && this.ts[k] === t ? k : seek(this.ts, 0, t);
  }
}

function seek(u: Float64Array, from: number, t: number): number {
  if (from >= u.length || u[from]! >= t) return from;
  let lo = from + 1;
  let hi = u.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (u[mid]! < t) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

// containsAll: whether every timestamp of ts (ascending) is in u.
function containsAll(u: Float64Array, ts: Float64Array): boolean {
  let j = 0;
  for (let i = 0; i < ts.length; i++) {
    j = seek(u, j, ts[i]!);
    if (j >= u.length || u[j] !== ts[i]) return false;
    j++;
  }
  return true;
}

function strictlyAscending(ts: Float64Array): boolean {
  for (let i = 1; i < ts.length; i++) if (!(ts[i]! > ts[i - 1]!)) return false;
  return true;
}

/**
 * distinctTimestamps returns the sorted union of the series' timestamps. Series whose timestamps
 * are all known already (every series of a range query after the first full one) cost a linear
 * check; the others are gathered and sorted once, so scattered raw samples stay O(n log n).
 */
export function distinctTimestamps(matrix: readonly SeriesResult[]): Float64Array {
  let known = new Float64Array(0);
  const extra: Float64Array[] = [];
  let extraLength = 0;
  for (const s of matrix) {
    if (containsAll(known, s.timestamps)) continue;
    if (known.length === 0 && extra.length === 0 && strictlyAscending(s.timestamps)) {
      known = s.timestamps.slice();
      continue;
    }
    extra.push(s.timestamps);
    extraLength += s.timestamps.length;
  }
  if (extra.length === 0) return known;
  const all = new Float64Array(known.length + extraLength);
  all.set(known);
  let at = known.length;
  for (const e of extra) {
    all.set(e, at);
    at += e.length;
  }
  all.sort();
  let n = 0;
  for (let i = 0; i < all.length; i++) if (n === 0 || all[i] !== all[n - 1]) all[n++] = all[i]!;
  return all.slice(0, n);
}
