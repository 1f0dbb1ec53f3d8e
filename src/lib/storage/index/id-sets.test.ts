import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { hasId, idsFromUnsorted, intersectIds, intersectRuns, intersectSourceRuns, markRuns, subtractIds, unionIds } from './id-sets.ts';

const setArb = fc.uniqueArray(fc.integer({ min: 0, max: 300 }), { maxLength: 60 }).map((a) => Float64Array.from(a.sort((x, y) => x - y)));
const sorted = (xs: Iterable<number>) => [...xs].sort((x, y) => x - y);

describe('id sets', () => {
  it('union, intersection and difference agree with Set arithmetic', () => {
    fc.assert(
      fc.property(fc.array(setArb, { maxLength: 9 }), (sets) => {
        const all = new Set(sets.flatMap((s) => Array.from(s)));
        expect(Array.from(unionIds(sets))).toEqual(sorted(all));
        const [a = new Float64Array(0), b = new Float64Array(0)] = sets;
        const bs = new Set(b);
        expect(Array.from(intersectIds(a, b))).toEqual(Array.from(a).filter((x) => bs.has(x)));
        expect(Array.from(subtractIds(a, b))).toEqual(Array.from(a).filter((x) => !bs.has(x)));
        for (const x of [0, 5, 150, 300]) expect(hasId(a, x)).toBe(a.includes(x));
      }),
      { numRuns: 500 },
    );
  });

  it('intersects sets given as runs as intersectIds does', () => {
    // A set cut into runs at random places, some of them empty.
    const runsArb = fc.tuple(setArb, fc.array(fc.nat(), { maxLength: 5 })).map(([set, cuts]) => {
      const at = [0, ...cuts.map((c) => c % (set.length + 1)).sort((x, y) => x - y), set.length];
      return at.slice(1).map((end, i) => set.subarray(at[i]!, end));
    });
    fc.assert(
      fc.property(fc.array(runsArb, { minLength: 1, maxLength: 4 }), (sets) => {
        const whole = sets.map((runs) => unionIds(runs));
        const want = whole.slice(1).reduce((acc, s) => intersectIds(acc, s), Float64Array.from(whole[0]!));
        expect(Array.from(intersectRuns(sets))).toEqual(Array.from(want));
      }),
      { numRuns: 500 },
    );
    expect(Array.from(intersectRuns([[Float64Array.from([1, 2 ** 52])], [Float64Array.from([2 ** 52])]]))).toEqual([2 ** 52]);
  });

  it('intersects sets given as several sources of runs as intersectIds of their unions', () => {
    // A source: a sorted set cut into runs; a set: up to 4 sources, overlapping or not (an ID may
    // be in two index parts).
    const runsArb = fc.tuple(setArb, fc.array(fc.nat(), { maxLength: 4 })).map(([set, cuts]) => {
      const at = [0, ...cuts.map((c) => c % (set.length + 1)).sort((x, y) => x - y), set.length];
      return at.slice(1).map((end, i) => set.subarray(at[i]!, end));
    });
    const sourcesArb = fc.array(runsArb, { minLength: 1, maxLength: 4 });
    fc.assert(
      fc.property(fc.array(sourcesArb, { minLength: 1, maxLength: 4 }), (sets) => {
        const whole = sets.map((sources) => unionIds(sources.flat()));
        const want = whole.slice(1).reduce((acc, s) => intersectIds(acc, s), Float64Array.from(whole[0]!));
        expect(Array.from(intersectSourceRuns(sets))).toEqual(Array.from(want));
      }),
      { numRuns: 1000 },
    );
  });

  it('unions ordered, disjoint and overlapping sets', () => {
    const f = (sets: number[][], want: number[]) => expect(Array.from(unionIds(sets.map((s) => Float64Array.from(s))))).toEqual(want);
    f([], []);
    f([[], []], []);
    f([[1, 2], [3, 4], [5]], [1, 2, 3, 4, 5]);
    f([[5, 6], [1, 2]], [1, 2, 5, 6]);
    f([[1, 3, 5], [2, 3, 4], [5, 9]], [1, 2, 3, 4, 5, 9]);
    f([[2 ** 40, 2 ** 52], [7]], [7, 2 ** 40, 2 ** 52]);
    expect(Array.from(idsFromUnsorted([3, 1, 3, 2]))).toEqual([1, 2, 3]);
  });

  it('marks the IDs of a set that ascending runs hold', () => {
    // Runs: a sorted set cut into consecutive pieces (as IndexView.idRunsBySource gives them per source).
    const runsArb = fc.tuple(setArb, fc.array(fc.nat(60), { maxLength: 5 })).map(([s, cuts]) => {
      const at = [0, ...sorted(new Set(cuts.map((c) => Math.min(c, s.length)))), s.length];
      return at.slice(1).map((end, k) => s.subarray(at[k]!, end));
    });
    fc.assert(
      fc.property(setArb, fc.array(runsArb, { maxLength: 4 }), (within, runsList) => {
        const keep = new Uint8Array(within.length);
        for (const runs of runsList) markRuns(within, runs, keep);
        const held = new Set(runsList.flatMap((runs) => runs.flatMap((r) => Array.from(r))));
        expect(Array.from(keep)).toEqual(Array.from(within).map((x) => (held.has(x) ? 1 : 0)));
      }),
      { numRuns: 1000 },
    );
  });
});
