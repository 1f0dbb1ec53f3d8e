// Classic (le-bucket) histogram math: quantile and fraction estimation, as Prometheus does it.

/** Bucket: cumulative count of observations ≤ upperBound. */
export interface Bucket {
  upperBound: number;
  count: number;
}

function prepare(buckets: Bucket[]): Bucket[] | null {
  buckets.sort((a, b) => a.upperBound - b.upperBound);
  if (buckets.length === 0 || buckets[buckets.length - 1]!.upperBound !== Infinity) return null;
  // Coalesce buckets with the same upper bound.
  const out: Bucket[] = [];
  for (const b of buckets) {
    const last = out[out.length - 1];
    if (last !== undefined && last.upperBound === b.upperBound) last.count += b.count;
    else out.push({ ...b });
  }
  return out;
}

/** inOrder: whether the buckets' bounds strictly increase (sorted, no bound twice) up to +Inf. */
function inOrder(b: Bucket[]): boolean {
  if (b.length === 0 || b[b.length - 1]!.upperBound !== Infinity) return false;
  for (let i = 1; i < b.length; i++) if (!(b[i - 1]!.upperBound < b[i]!.upperBound)) return false;
  return true;
}

// counts: bucketQuantile's copy of a step's cumulative counts, which it corrects in place; one
// array reused by every call (grown as needed) instead of a Bucket object per bucket and step.
let counts = new Float64Array(64);

// Counts that differ by a relative 1e-12 are float noise: treat them as equal.
function correctPrecisionErrors(c: Float64Array, n: number): void {
  let prev = c[0]!;
  for (let i = 1; i < n; i++) {
    const curr = c[i]!;
    const delta = Math.abs(curr - prev);
    if (delta === 0) continue;
    if (delta / curr <= 1e-12) c[i] = prev;
    else prev = curr;
  }
}

// Cumulative counts must not decrease; take the running maximum (the "envelope").
function ensureMonotonic(c: Float64Array, n: number): void {
  let max = c[0]!;
  for (let i = 1; i < n; i++) {
    if (c[i]! > max) max = c[i]!;
    else if (c[i]! < max) c[i] = max;
  }
}

/**
 * bucketQuantile estimates the q-quantile by linear interpolation inside the bucket holding
 * rank q*count; 0 is the natural lower bound of a positive first bucket. NaN without a +Inf
 * bucket, with fewer than two buckets or no observations; ±Inf for q outside [0, 1]. Buckets
 * already in order (as histogram_quantile passes them) are neither sorted nor copied (others
 * are sorted in place first); their counts are never changed.
 */
export function bucketQuantile(q: number, input: Bucket[]): number {
  if (q !== q) return NaN;
  if (q < 0) return -Infinity;
  if (q > 1) return Infinity;
  const b = inOrder(input) ? input : prepare(input);
  if (b === null) return NaN;
  const n = b.length;
  if (counts.length < n) counts = new Float64Array(Math.max(n, 2 * counts.length));
  const c = counts;
  for (let i = 0; i < n; i++) c[i] = b[i]!.count;
  correctPrecisionErrors(c, n);
  ensureMonotonic(c, n);
  if (n < 2) return NaN;
  const observations = c[n - 1]!;
  if (observations === 0) return NaN;
  let rank = q * observations;
  let i = 0;
  while (i < n - 1 && !(c[i]! >= rank)) i++;
  if (i === n - 1) return b[n - 2]!.upperBound;
  if (i === 0 && b[0]!.upperBound <= 0) return b[0]!.upperBound;
  let start = 0;
  const end = b[i]!.upperBound;
  let count = c[i]!;
  if (i > 0) {
    start = b[i - 1]!.upperBound;
    count -= c[i - 1]!;
    rank -= c[i - 1]!;
  }
  return start + (end - start) * (rank / count);
}

/**
 * bucketFraction estimates the share of observations in (lower, upper], interpolating linearly
 * inside buckets (the first bucket starts at 0 when its upper bound is positive, else at -Inf).
 */
export function bucketFraction(lower: number, upper: number, input: Bucket[]): number {
  const b = prepare(input);
  if (b === null) return NaN;
  const total = b[b.length - 1]!.count;
  if (total === 0 || lower !== lower || upper !== upper) return NaN;
  if (lower >= upper) return 0;
  let rank = 0;
  let lowerRank = 0;
  let upperRank = 0;
  let lowerSet = false;
  let upperSet = false;
  for (let i = 0; i < b.length; i++) {
    const lo = i > 0 ? b[i - 1]!.upperBound : b[0]!.upperBound > 0 ? 0 : -Infinity;
    const hi = b[i]!.upperBound;
    const inBucket = b[i]!.count - rank;
    // No interpolation inside an infinitely wide bucket: a bound falling into (-Inf, u] counts
    // the whole bucket below it, one falling into (l, +Inf] none of it.
    const at = (v: number): number => (lo === -Infinity ? rank + inBucket : hi === Infinity ? rank : rank + (inBucket * (v - lo)) / (hi - lo));
    if (!lowerSet && lo >= lower) [lowerRank, lowerSet] = [rank, true];
    if (!upperSet && lo >= upper) [upperRank, upperSet] = [rank, true];
    if (lowerSet && upperSet) break;
    if (!lowerSet && lo < lower && hi > lower) [lowerRank, lowerSet] = [at(lower), true];
    if (!upperSet && lo < upper && hi > upper) [upperRank, upperSet] = [at(upper), true];
    if (lowerSet && upperSet) break;
    rank = b[i]!.count;
  }
  if (!lowerSet || lowerRank > total) lowerRank = total;
  if (!upperSet || upperRank > total) upperRank = total;
  return (upperRank - lowerRank) / total;
}

/** parseGoFloat parses a bucket bound as Go's strconv.ParseFloat would (Inf spellings included). */
export function parseGoFloat(s: string): number {
  const t = s.toLowerCase();
  if (t === '+inf' || t === 'inf' || t === '+infinity' || t === 'infinity') return Infinity;
  if (t === '-inf' || t === '-infinity') return -Infinity;
  if (t === 'nan') return NaN;
  if (!/^[+-]?(\d+\.?\d*([eE][+-]?\d+)?|\.\d+([eE][+-]?\d+)?|0[xX][0-9a-fA-F]+)$/.test(s)) return NaN;
  return Number(s);
}

/** formatOpenMetricsFloat formats as Go's strconv 'g' shortest, with ".0" on integers. */
export function formatOpenMetricsFloat(f: number): string {
  if (f !== f) return 'NaN';
  if (f === Infinity) return '+Inf';
  if (f === -Infinity) return '-Inf';
  const exp = f === 0 ? 0 : Math.floor(Math.log10(Math.abs(f)));
  let s: string;
  if (exp < -4 || exp >= 6) {
    const [m = '', e = '0'] = f.toExponential().split('e');
    const n = Number(e);
    s = `${m}e${n < 0 ? '-' : '+'}${String(Math.abs(n)).padStart(2, '0')}`;
  } else {
    s = String(f);
  }
  return /[.e]/.test(s) ? s : `${s}.0`;
}
