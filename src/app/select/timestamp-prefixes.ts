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
  /** words: bytes as a DataView holding at least 3 bytes after the last prefix. */
  readonly words: DataView;
  /** maxLength: the longest prefix, in bytes. */
  readonly maxLength: number;

  /**
   * format(ms) spells a timestamp as Prometheus' JSON does, String(ms / 1000): a timestamp on a
   * whole second, below 10^15 s, is written here as those same digits without it, since String()
   * of a double above 2^30 allocates its text in V8's old generation (the number-to-string cache),
   * 1,440 strings of garbage per 24 h answer that only a full collection frees.
   */
  constructor(matrix: readonly SeriesResult[], format: (ms: number) => string) {
    const ts = distinctTimestamps(matrix);
    this.ts = ts;
    this.starts = new Uint32Array(ts.length + 1);
    // `[`, up to 15 digits, `,"` (18 bytes); a formatted timestamp may need more: then it grows.
    let bytes = Buffer.allocUnsafe(ts.length * 18 + 64);
    let at = 0;
    let max = 0;
    for (let k = 0; k < ts.length; k++) {
      const t = ts[k]!;
      const s = t / 1000;
      const text = Number.isInteger(s) && s >= 0 && s < 1e15 ? undefined : format(t);
      const need = text === undefined ? 18 : text.length + 3;
      if (at + need + 18 * (ts.length - k - 1) + 3 > bytes.length) {
        const grown = Buffer.allocUnsafe(2 * bytes.length + need);
        bytes.copy(grown, 0, 0, at);
        bytes = grown;
      }
      this.starts[k] = at;
      bytes[at++] = 91; // [
      at = text === undefined ? writeDigits(bytes, at, s) : at + bytes.write(text, at, 'latin1');
      bytes[at++] = 44; // ,
      bytes[at++] = 34; // "
      if (at - this.starts[k]! > max) max = at - this.starts[k]!;
    }
    this.starts[ts.length] = at;
    this.bytes = bytes.subarray(0, at);
    // 3 bytes of slack after the last prefix, so that whole 4-byte words can be read.
    this.words = new DataView(bytes.buffer, bytes.byteOffset, Math.min(bytes.length, at + 3));
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

// writeDigits writes the decimal digits of v, an integer in [0, 10^15), at out[at]; returns the end.
function writeDigits(out: Buffer, at: number, v: number): number {
  let len = 1;
  for (let p = 10; p <= v; p *= 10) len++;
  const end = at + len;
  for (let i = end - 1; i >= at; i--) {
    const q = Math.floor(v / 10);
    out[i] = 48 + (v - q * 10);
    v = q;
  }
  return end;
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

// containsAll: whether every timestamp of ts (ascending) is in u. The next timestamp is mostly
// the next one of u (a range query's series has a point at most steps): that is tested first.
function containsAll(u: Float64Array, ts: Float64Array): boolean {
  let j = 0;
  for (let i = 0; i < ts.length; i++) {
    const t = ts[i]!;
    if (j < u.length && u[j] === t) {
      j++;
      continue;
    }
    j = seek(u, j, t);
    if (j >= u.length || u[j] !== t) return false;
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
