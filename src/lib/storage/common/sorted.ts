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
