/**
 * lowerBound returns the first index i >= lo of ascending array a with a[i] >= x (a.length if
 * none): the binary search behind the sorted series-ID sets of searches and index lookups.
 */
export function lowerBound(a: Float64Array, x: number, lo = 0): number {
  let hi = a.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (a[mid]! < x) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/**
 * unionAscending returns the union of ascending, duplicate-free arrays (series-ID sets), merging
 * them pairwise: O(total · log(sets)); `empty` when all are empty. One set is returned as is.
 */
export function unionAscending(sets: readonly Float64Array[], empty: Float64Array): Float64Array {
  let level = sets.filter((s) => s.length > 0);
  if (level.length === 0) return empty;
  while (level.length > 1) {
    const next: Float64Array[] = [];
    for (let i = 0; i + 1 < level.length; i += 2) next.push(mergeIds(level[i]!, level[i + 1]!));
    if (level.length % 2 === 1) next.push(level[level.length - 1]!);
    level = next;
  }
  return level[0]!;
}

/** mergeIds returns a ∪ b. */
function mergeIds(a: Float64Array, b: Float64Array): Float64Array {
  // Disjoint, ordered sets (a label's values usually cover ranges of IDs) are concatenated.
  if (a[a.length - 1]! < b[0]!) return concatIds(a, b);
  if (b[b.length - 1]! < a[0]!) return concatIds(b, a);
  const out = new Float64Array(a.length + b.length);
  let i = 0;
  let j = 0;
  let n = 0;
  while (i < a.length && j < b.length) {
    const x = a[i]!;
    const y = b[j]!;
    if (x <= y) {
      out[n++] = x;
      i++;
      if (x === y) j++;
    } else {
      out[n++] = y;
      j++;
    }
  }
  while (i < a.length) out[n++] = a[i++]!;
  while (j < b.length) out[n++] = b[j++]!;
  return out.subarray(0, n);
}

function concatIds(first: Float64Array, second: Float64Array): Float64Array {
  const out = new Float64Array(first.length + second.length);
  out.set(first);
  out.set(second, first.length);
  return out;
}
