// Sets of series IDs are sorted, duplicate-free Float64Arrays (IDs are integers < 2^53).
// All functions are pure and return new arrays.
import { lowerBound, unionAscending } from '../common/sorted.ts';

/** EMPTY_IDS is the empty set. */
export const EMPTY_IDS = new Float64Array(0);

/** idsFromUnsorted sorts ids and drops duplicates. */
export function idsFromUnsorted(ids: ArrayLike<number>): Float64Array {
  const a = Float64Array.from(ids).sort();
  let n = 0;
  for (let i = 0; i < a.length; i++) if (i === 0 || a[i] !== a[n - 1]) a[n++] = a[i]!;
  return a.subarray(0, n);
}

/** intersectIds returns a ∩ b. */
export function intersectIds(a: Float64Array, b: Float64Array): Float64Array {
  const out = new Float64Array(Math.min(a.length, b.length));
  let i = 0;
  let j = 0;
  let n = 0;
  while (i < a.length && j < b.length) {
    const x = a[i]!;
    const y = b[j]!;
    if (x === y) {
      out[n++] = x;
      i++;
      j++;
    } else if (x < y) i++;
    else j++;
  }
  return out.subarray(0, n);
}

/** subtractIds returns a \ b. */
export function subtractIds(a: Float64Array, b: Float64Array): Float64Array {
  if (b.length === 0) return a;
  const out = new Float64Array(a.length);
  let j = 0;
  let n = 0;
  for (let i = 0; i < a.length; i++) {
    const x = a[i]!;
    while (j < b.length && b[j]! < x) j++;
    if (j < b.length && b[j] === x) continue;
    out[n++] = x;
  }
  return out.subarray(0, n);
}

/** unionIds returns the union of all sets (merging them pairwise: O(total · log(sets))). */
export const unionIds = (sets: readonly Float64Array[]): Float64Array => unionAscending(sets, EMPTY_IDS);

/** hasId reports whether sorted set a holds id. */
export function hasId(a: Float64Array, id: number): boolean {
  const i = lowerBound(a, id);
  return i < a.length && a[i] === id;
}

/**
 * intersectRuns returns the intersection of several sets, each given as ascending runs (every run
 * sorted, each past the one before; IndexView.idRuns). It leapfrogs: every set seeks the largest
 * candidate by binary search, so the cost follows the smaller sets, and only the answer is
 * allocated. The runs are only read.
 */
export function intersectRuns(sets: readonly (readonly Float64Array[])[]): Float64Array {
  return intersectSourceRuns(sets.map((runs) => [runs]));
}

/**
 * intersectSourceRuns is intersectRuns of sets each given as the union of several sources' runs
 * (IndexView.idRunsBySource: one list of ascending runs per index part or in-memory table). A set
 * of several sources is walked as the union of their cursors, so no source is copied or merged
 * (with several index parts, every matcher's set was copied and merged before the intersection).
 * A set without sources is empty.
 */
export function intersectSourceRuns(sets: readonly (readonly (readonly Float64Array[])[])[]): Float64Array {
  if (sets.length === 1) {
    const sources = sets[0]!;
    return sources.length === 1 ? concatRuns(sources[0]!) : unionIds(sources.map(concatRuns));
  }
  const cs = sets.map((sources): SeekCursor => (sources.length === 1 ? new RunCursor(sources[0]!) : new UnionCursor(sources.map((runs) => new RunCursor(runs)))));
  const out: number[] = [];
  let x = -Infinity;
  for (;;) {
    let agreed = true;
    for (const c of cs) {
      c.seek(x);
      if (c.done) return Float64Array.from(out);
      if (c.value !== x) {
        agreed = false;
        x = c.value;
        break;
      }
    }
    if (agreed) {
      out.push(x);
      x += 1; // IDs are integers
    }
  }
}

/** concatRuns joins runs into one array, in order. */
export function concatRuns(runs: readonly Float64Array[]): Float64Array {
  let n = 0;
  for (const r of runs) n += r.length;
  const out = new Float64Array(n);
  n = 0;
  for (const r of runs) {
    out.set(r, n);
    n += r.length;
  }
  return out;
}

// SeekCursor walks a sorted set forward: value is its current ID while not done.
interface SeekCursor {
  readonly done: boolean;
  readonly value: number;
  seek(x: number): void;
}

// UnionCursor walks the union of several cursors: its value is the smallest of theirs.
class UnionCursor implements SeekCursor {
  readonly #cs: RunCursor[];
  done = false;
  value = 0;

  constructor(cs: RunCursor[]) {
    this.#cs = cs;
    this.seek(-Infinity);
  }

  seek(x: number): void {
    let min = Infinity;
    for (const c of this.#cs) {
      c.seek(x);
      if (!c.done && c.value < min) min = c.value;
    }
    this.done = min === Infinity;
    this.value = min;
  }
}

// RunCursor walks a set given as runs, seeking forward.
class RunCursor implements SeekCursor {
  readonly #runs: readonly Float64Array[];
  #r = 0;
  #i = 0;

  constructor(runs: readonly Float64Array[]) {
    this.#runs = runs.filter((r) => r.length > 0);
  }

  get done(): boolean {
    return this.#r >= this.#runs.length;
  }

  get value(): number {
    return this.#runs[this.#r]![this.#i]!;
  }

  /** seek moves to the first ID >= x (never backwards). */
  seek(x: number): void {
    for (; this.#r < this.#runs.length; this.#r++, this.#i = 0) {
      const run = this.#runs[this.#r]!;
      if (run[run.length - 1]! < x) continue;
      if (run[this.#i]! < x) {
        let lo = this.#i + 1;
        let hi = run.length - 1;
        while (lo < hi) {
          const mid = (lo + hi) >>> 1;
          if (run[mid]! < x) lo = mid + 1;
          else hi = mid;
        }
        this.#i = lo;
      }
      return;
    }
  }
}

/**
 * markRuns sets keep[i] for every ID within[i] that the ascending runs hold (IndexView.idRuns).
 * Each side gallops to the other's next ID, so the cost follows the smaller side, and nothing of
 * the runs' size is allocated.
 */
export function markRuns(within: Float64Array, runs: readonly Float64Array[], keep: Uint8Array): void {
  let i = 0;
  for (const run of runs) {
    let r = 0;
    while (r < run.length) {
      if (i >= within.length) return;
      const x = run[r]!;
      const y = within[i]!;
      if (x === y) {
        keep[i++] = 1;
        r++;
      } else if (x < y) r = gallop(run, y, r + 1);
      else i = gallop(within, x, i + 1);
    }
  }
}

// gallop returns the first index at or after lo whose ID is >= x: steps of doubling length,
// then a binary search within the last step, so a near answer costs O(1).
function gallop(a: Float64Array, x: number, lo: number): number {
  let step = 1;
  let hi = lo;
  while (hi < a.length && a[hi]! < x) {
    lo = hi + 1;
    hi += step;
    step *= 2;
  }
  if (hi > a.length) hi = a.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (a[mid]! < x) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}
