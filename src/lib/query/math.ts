// Numeric helpers shared by rollups and aggregations, with Prometheus' exact semantics
// (Kahan–Neumaier summation, quantile interpolation, NaN ordering).

/** KahanSum is a running compensated sum; use add() then value(). */
export class KahanSum {
  sum = 0;
  c = 0;

  add(x: number): void {
    const t = this.sum + x;
    if (!Number.isFinite(t) && !Number.isNaN(t)) this.c = 0;
    else if (Math.abs(this.sum) >= Math.abs(x)) this.c += this.sum - t + x;
    else this.c += x - t + this.sum;
    this.sum = t;
  }

  /** value is the compensated sum (the raw sum when it overflowed to ±Inf). */
  value(): number {
    return Number.isFinite(this.sum) ? this.sum + this.c : this.sum;
  }
}

/** kahanInc adds inc to (sum, c) and returns the new pair (Neumaier's variant). */
export function kahanInc(inc: number, sum: number, c: number): [number, number] {
  const t = sum + inc;
  if (t === Infinity || t === -Infinity) return [t, 0];
  if (Math.abs(sum) >= Math.abs(inc)) return [t, c + (sum - t + inc)];
  return [t, c + (inc - t + sum)];
}

/** compareNaNFirst orders numbers ascending with NaN before everything (Prometheus' heap order). */
export function compareNaNFirst(a: number, b: number): number {
  if (a !== a) return b !== b ? 0 : -1;
  if (b !== b) return 1;
  return a < b ? -1 : a > b ? 1 : 0;
}

/**
 * quantile returns the q-quantile of values by linear interpolation between closest ranks
 * (values ordered with NaN first, as Prometheus sorts them): NaN for no values or q NaN,
 * -Inf for q < 0, +Inf for q > 1. Runs in linear time (selection, no full sort).
 */
export function quantile(q: number, values: ArrayLike<number>): number {
  if (values.length === 0 || q !== q) return NaN;
  if (q < 0) return -Infinity;
  if (q > 1) return Infinity;
  const n = values.length;
  const nums = new Float64Array(n);
  let m = 0;
  for (let i = 0; i < n; i++) {
    const v = values[i]!;
    if (v === v) nums[m++] = v;
  }
  const nans = n - m;
  const rank = q * (n - 1);
  const lower = Math.max(0, Math.floor(rank));
  const upper = Math.min(n - 1, lower + 1);
  const weight = rank - Math.floor(rank);
  const at = (k: number): number => (k < nans ? NaN : kth(nums.subarray(0, m), k - nans));
  const lo = at(lower);
  const hi = upper === lower ? lo : at(upper);
  return lo * (1 - weight) + hi * weight;
}

/** kth returns the k-th smallest element of a (reordering a), by iterative quickselect. */
export function kth(a: Float64Array, k: number): number {
  let left = 0;
  let right = a.length - 1;
  while (right > left) {
    // Median of three as the pivot keeps sorted and reversed inputs linear.
    const mid = (left + right) >> 1;
    const x = a[left]!;
    const y = a[mid]!;
    const z = a[right]!;
    const pivot = x < y ? (y < z ? y : x < z ? z : x) : x < z ? x : y < z ? z : y;
    let i = left;
    let j = right;
    while (i <= j) {
      while (a[i]! < pivot) i++;
      while (a[j]! > pivot) j--;
      if (i <= j) {
        const t = a[i]!;
        a[i++] = a[j]!;
        a[j--] = t;
      }
    }
    if (k <= j) right = j;
    else if (k >= i) left = i;
    else return a[k]!;
  }
  return a[k]!;
}

/**
 * mean returns the average of values[from, to) as Prometheus' avg_over_time does: a direct
 * Kahan sum while it stays finite, else an incremental mean.
 */
export function mean(values: Float64Array, from: number, to: number): number {
  let sum = values[from]!;
  let c = 0;
  let m = 0;
  let incremental = false;
  let count = 1;
  for (let i = from + 1; i < to; i++) {
    const f = values[i]!;
    count++;
    if (!incremental) {
      // Kahan–Neumaier step, inlined (this runs once per sample).
      const t = sum + f;
      if (t !== Infinity && t !== -Infinity) {
        c += Math.abs(sum) >= Math.abs(f) ? sum - t + f : f - t + sum;
        sum = t;
        continue;
      }
      incremental = true;
      m = sum / (count - 1);
      c /= count - 1;
    }
    const q = (count - 1) / count;
    const inc = f / count;
    const base = q * m;
    c *= q;
    const t = base + inc;
    if (t === Infinity || t === -Infinity) c = 0;
    else c += Math.abs(base) >= Math.abs(inc) ? base - t + inc : inc - t + base;
    m = t;
  }
  return incremental ? m + c : sum / count + c / count;
}

/** variance returns the population variance of values[from, to) (Kahan-compensated Welford). */
export function variance(values: Float64Array, from: number, to: number): number {
  let count = 0;
  const m = new KahanSum();
  const aux = new KahanSum();
  for (let i = from; i < to; i++) {
    const f = values[i]!;
    count++;
    const delta = f - (m.sum + m.c);
    m.add(delta / count);
    aux.add(delta * (f - (m.sum + m.c)));
  }
  return (aux.sum + aux.c) / count;
}

/**
 * linearRegression fits values against (timestamps - interceptTime)/1000 by least squares and
 * returns [slope per second, intercept at interceptTime].
 */
export function linearRegression(ts: Float64Array, vs: Float64Array, from: number, to: number, interceptTime: number): [number, number] {
  let n = 0;
  const sx = new KahanSum();
  const sy = new KahanSum();
  const sxy = new KahanSum();
  const sx2 = new KahanSum();
  const initY = vs[from]!;
  let constY = true;
  for (let i = from; i < to; i++) {
    const y = vs[i]!;
    if (constY && i > from && y !== initY) constY = false;
    n++;
    const x = (ts[i]! - interceptTime) / 1000;
    sx.add(x);
    sy.add(y);
    sxy.add(x * y);
    sx2.add(x * x);
  }
  if (constY) return Number.isFinite(initY) ? [0, initY] : [NaN, NaN];
  const sumX = sx.sum + sx.c;
  const sumY = sy.sum + sy.c;
  const sumXY = sxy.sum + sxy.c;
  const sumX2 = sx2.sum + sx2.c;
  const covXY = sumXY - (sumX * sumY) / n;
  const varX = sumX2 - (sumX * sumX) / n;
  const slope = covXY / varX;
  return [slope, sumY / n - (slope * sumX) / n];
}

/** formatGoFloat formats like Go's strconv.FormatFloat(f, 'f', -1, 64): shortest, no exponent. */
export function formatGoFloat(f: number): string {
  if (f !== f) return 'NaN';
  if (f === Infinity) return '+Inf';
  if (f === -Infinity) return '-Inf';
  const s = String(f);
  if (!/e/i.test(s)) return s;
  const [mant = '', expText = '0'] = s.split('e');
  const exp = Number(expText);
  const neg = mant.startsWith('-');
  const digits = mant.replace('-', '').replace('.', '');
  const pointAt = (mant.replace('-', '').indexOf('.') === -1 ? mant.replace('-', '').length : mant.replace('-', '').indexOf('.')) + exp;
  let out: string;
  if (pointAt <= 0) out = `0.${'0'.repeat(-pointAt)}${digits}`;
  else if (pointAt >= digits.length) out = digits + '0'.repeat(pointAt - digits.length);
  else out = `${digits.slice(0, pointAt)}.${digits.slice(pointAt)}`;
  return neg ? `-${out}` : out;
}
