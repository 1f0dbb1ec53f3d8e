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
 * Samples arrive as a few ascending runs (one per part or block a search or merge read, buffers
 * in arrival order) or nearly in order (a few out of place where concurrent requests met). Few
 * runs are merged (linear per pass, however far apart their ranges) unless every run starts
 * within NEAR places of where it belongs; those, and many runs with short displacements, are
 * insertion-sorted; anything else falls back to merging every run.
 */
export function sortSamples(ts: Float64Array, vals: Float64Array, n: number): void {
  let i = 1;
  while (i < n && !(ts[i - 1]! > ts[i]!)) i++;
  if (i >= n) return;
  let runs = 2;
  let near = isNear(ts, i);
  for (let j = i + 1; j < n && runs <= MERGE_RUNS_DIRECTLY; j++) {
    if (ts[j - 1]! > ts[j]!) {
      runs++;
      near &&= isNear(ts, j);
    }
  }
  if ((runs <= MERGE_RUNS_DIRECTLY && !near) || !insertionSort(ts, vals, i, n, 4 * n + 64)) mergeRuns(ts, vals, n);
}

// Up to this many ascending runs are merged at once (at most log2 of it passes over the samples).
const MERGE_RUNS_DIRECTLY = 32;

// NEAR: a run whose first sample belongs at most this many places back is a local disorder. A
// flushed buffer's series is like that (two requests' rows of adjacent scrapes interleaved): there
// the merge passes, which copy every sample per pass, cost ~14 ns per sample at 52 samples per
// series against ~3 for the insertion sort.
const NEAR = 4;

// isNear reports whether ts[j] belongs within NEAR places before j (ts[j - 1] > ts[j]).
function isNear(ts: Float64Array, j: number): boolean {
  return j <= NEAR || !(ts[j - NEAR - 1]! > ts[j]!);
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

// Scratch for mergeRuns, reused up to SCRATCH_KEEP samples (1 MiB); larger sorts allocate their own
// so that one long series does not pin its size for the life of the process.
const SCRATCH_KEEP = 65536;
let keptTs = new Float64Array(0);
let keptBits = new Uint32Array(0);
let keptRuns = new Uint32Array(0);

// mergeRuns is a stable natural merge sort of ts[0..n): it finds the maximal ascending runs and
// merges neighbours pairwise, ping-ponging between the arrays and a scratch copy, values moved as
// raw bits. Passes: ceil(log2(runs)).
function mergeRuns(ts: Float64Array, vals: Float64Array, n: number): void {
  let tmpTs = keptTs;
  let tmpBits = keptBits;
  let runs = keptRuns;
  if (n > keptTs.length) {
    tmpTs = new Float64Array(n);
    tmpBits = new Uint32Array(2 * n);
    runs = new Uint32Array(n + 1);
    if (n <= SCRATCH_KEEP) [keptTs, keptBits, keptRuns] = [tmpTs, tmpBits, runs];
  }
  let k = 0;
  runs[k++] = 0;
  for (let i = 1; i < n; i++) if (ts[i - 1]! > ts[i]!) runs[k++] = i;
  runs[k] = n;
  let srcT: Float64Array = ts;
  let srcB: Uint32Array = new Uint32Array(vals.buffer, vals.byteOffset, 2 * n);
  const bits = srcB;
  let dstT: Float64Array = tmpTs;
  let dstB: Uint32Array = tmpBits;
  while (k > 1) {
    let w = 0;
    for (let r = 0; r < k; r += 2) {
      const lo = runs[r]!;
      const mid = runs[r + 1]!;
      const hi = r + 2 <= k ? runs[r + 2]! : mid;
      mergePair(srcT, srcB, dstT, dstB, lo, mid, hi);
      runs[w++] = lo;
    }
    runs[w] = n;
    k = w;
    [srcT, dstT] = [dstT, srcT];
    [srcB, dstB] = [dstB, srcB];
  }
  if (srcT !== ts) {
    ts.set(srcT.subarray(0, n));
    bits.set(srcB.subarray(0, 2 * n));
  }
}

// mergePair merges the ascending runs src[lo..mid) and src[mid..hi) into dst[lo..hi), taking the
// left run's sample on equal timestamps (stable).
function mergePair(srcT: Float64Array, srcB: Uint32Array, dstT: Float64Array, dstB: Uint32Array, lo: number, mid: number, hi: number): void {
  let i = lo;
  let j = mid;
  let o = lo;
  while (i < mid && j < hi) {
    let from: number;
    if (srcT[j]! < srcT[i]!) from = j++;
    else from = i++;
    dstT[o] = srcT[from]!;
    dstB[2 * o] = srcB[2 * from]!;
    dstB[2 * o + 1] = srcB[2 * from + 1]!;
    o++;
  }
  if (i < mid) {
    dstT.set(srcT.subarray(i, mid), o);
    dstB.set(srcB.subarray(2 * i, 2 * mid), 2 * o);
  } else if (j < hi) {
    dstT.set(srcT.subarray(j, hi), o);
    dstB.set(srcB.subarray(2 * j, 2 * hi), 2 * o);
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
