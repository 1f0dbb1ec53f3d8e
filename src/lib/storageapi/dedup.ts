// Sample ordering, duplicate and deduplication rules: part of the contract, so that an answer
// never depends on where samples met — the storage engine's flushes, merges and searches
// (src/lib/storage/FORMAT.md "Samples") and the cluster's merge of answers from several nodes.

const cmpScratch = new Float64Array(2);
const cmpBits = new Uint32Array(cmpScratch.buffer);

/**
 * winsDuplicate reports whether value a beats value b at the same timestamp. The rule is a total
 * order, so the outcome is the same whatever order parts are merged in: larger number wins,
 * +0 beats -0, any NaN beats every number, and between NaNs the larger bit pattern wins (an
 * ordinary NaN beats a staleness marker).
 */
export function winsDuplicate(a: number, b: number): boolean {
  if (a === a && b === b) {
    if (a !== b) return a > b;
    return Object.is(b, -0) && !Object.is(a, -0);
  }
  if (a === a) return false;
  if (b === b) return true;
  cmpScratch[0] = a;
  cmpScratch[1] = b;
  return cmpBits[1]! > cmpBits[3]! || (cmpBits[1] === cmpBits[3] && cmpBits[0]! > cmpBits[2]!);
}

// NaN payload comparisons above read bits through a Float64Array holding a and b; V8 keeps the
// payload of a number held in a variable or a typed array, which is all the storage path uses.

/**
 * sortSamples orders ts[0..n) ascending, moving vals along (stable, by raw bits). In place.
 * Samples usually arrive nearly in order (a few out of place where concurrent requests or
 * overlapping parts met): an insertion sort handles that in about one pass; only input with many
 * displaced samples pays for the index sort.
 */
export function sortSamples(ts: Float64Array, vals: Float64Array, n: number): void {
  let i = 1;
  while (i < n && !(ts[i - 1]! > ts[i]!)) i++;
  if (i >= n) return;
  if (insertionSort(ts, vals, i, n, 4 * n + 64)) return;
  indexSort(ts, vals, n);
}

// insertionSort sorts ts[0..n) (sorted before `from`) by shifting samples back one at a time,
// stable, values moved as raw bits; gives up (returning false) after `budget` shifts, leaving a
// permutation of the input whose equal timestamps are still in their original order.
function insertionSort(ts: Float64Array, vals: Float64Array, from: number, n: number, budget: number): boolean {
  const vb = new Uint32Array(vals.buffer, vals.byteOffset, n * 2);
  for (let i = from; i < n; i++) {
    const t = ts[i]!;
    if (!(ts[i - 1]! > t)) continue;
    const lo = vb[2 * i]!;
    const hi = vb[2 * i + 1]!;
    let j = i - 1;
    for (; j >= 0 && ts[j]! > t; j--) {
      ts[j + 1] = ts[j]!;
      vb[2 * j + 2] = vb[2 * j]!;
      vb[2 * j + 3] = vb[2 * j + 1]!;
    }
    ts[j + 1] = t;
    vb[2 * j + 2] = lo;
    vb[2 * j + 3] = hi;
    budget -= i - j;
    if (budget < 0) return false;
  }
  return true;
}

function indexSort(ts: Float64Array, vals: Float64Array, n: number): void {
  const idx = new Uint32Array(n);
  for (let i = 0; i < n; i++) idx[i] = i;
  idx.sort((x, y) => ts[x]! - ts[y]! || x - y);
  const t2 = ts.slice(0, n);
  const v2 = new Uint32Array(vals.buffer, vals.byteOffset, n * 2).slice();
  const vb = new Uint32Array(vals.buffer, vals.byteOffset, n * 2);
  for (let i = 0; i < n; i++) {
    const j = idx[i]!;
    ts[i] = t2[j]!;
    vb[2 * i] = v2[2 * j]!;
    vb[2 * i + 1] = v2[2 * j + 1]!;
  }
}

/**
 * resolveDuplicates keeps one sample per timestamp of sorted ts[0..n) (the winner of
 * winsDuplicate) and returns the new length. In place.
 */
export function resolveDuplicates(ts: Float64Array, vals: Float64Array, n: number): number {
  if (n < 2) return n;
  let out = 0;
  for (let i = 1; i < n; i++) {
    if (ts[i] === ts[out]) {
      if (winsDuplicate(vals[i]!, vals[out]!)) vals[out] = vals[i]!;
    } else {
      out++;
      if (out !== i) {
        ts[out] = ts[i]!;
        vals[out] = vals[i]!;
      }
    }
  }
  return out + 1;
}

/**
 * dedupByInterval keeps, for sorted duplicate-free ts[0..n), the last sample of every window
 * (k·d − d, k·d] (windows aligned to multiples of d, as -dedup.minScrapeInterval does in
 * VictoriaMetrics) and returns the new length. d <= 0 keeps everything. In place.
 */
export function dedupByInterval(ts: Float64Array, vals: Float64Array, n: number, d: number): number {
  if (d <= 0 || n < 2) return n;
  let out = 0;
  let win = Math.ceil(ts[0]! / d);
  for (let i = 1; i < n; i++) {
    const w = Math.ceil(ts[i]! / d);
    if (w !== win) {
      out++;
      win = w;
    }
    if (out !== i) {
      ts[out] = ts[i]!;
      vals[out] = vals[i]!;
    }
  }
  return out + 1;
}

/** normalizeSamples sorts, resolves duplicates and deduplicates in place; returns the new length. */
export function normalizeSamples(ts: Float64Array, vals: Float64Array, n: number, dedupMs: number): number {
  sortSamples(ts, vals, n);
  n = resolveDuplicates(ts, vals, n);
  return dedupByInterval(ts, vals, n, dedupMs);
}
