import { describe, it, expect } from 'vitest';
import fc from 'fast-check';
import { parse } from './parse.ts';
import { encodeWriteRequest } from './encode.ts';
import { ParseError } from '../common/parse-error.ts';
import { canonicalLabels, type Label } from '../common/row.ts';
import { labelsAreCanonical } from '../common/testing.ts';

function check(body: Uint8Array): void {
  try {
    const r = parse(body);
    for (const row of r.rows) {
      expect(labelsAreCanonical(row)).toBe(true);
      expect(Number.isSafeInteger(row.timestamp)).toBe(true);
    }
  } catch (e) {
    if (!(e instanceof ParseError)) throw e;
    expect(e.offset).toBeGreaterThanOrEqual(0);
  }
}

const labelsArb = fc
  .dictionary(fc.string({ minLength: 1, maxLength: 6 }), fc.string({ minLength: 1, maxLength: 6 }), { minKeys: 1, maxKeys: 4 })
  .map((d) => canonicalLabels(Object.entries(d).map(([name, value]) => ({ name, value })), 'reject'));
const seriesArb = fc.record({
  labels: labelsArb,
  samples: fc.array(fc.tuple(fc.integer({ min: -(2 ** 53) + 1, max: 2 ** 53 - 1 }), fc.double()), { minLength: 1, maxLength: 5 }),
});
const encode = (series: { labels: Label[]; samples: [number, number][] }[]): Buffer =>
  encodeWriteRequest(series.map((s) => ({ labels: s.labels, timestamps: s.samples.map((x) => x[0]), values: Float64Array.from(s.samples.map((x) => x[1])) })));

describe('remote write parse fuzz', () => {
  it('never throws anything but ParseError on arbitrary bytes', () => {
    fc.assert(fc.property(fc.uint8Array({ maxLength: 300 }), check), { numRuns: 5000 });
  });

  it('never throws anything but ParseError on mutated valid messages', () => {
    const mutated = fc.tuple(fc.array(seriesArb, { minLength: 1, maxLength: 3 }), fc.array(fc.tuple(fc.nat(), fc.integer({ min: 0, max: 255 })), { minLength: 1, maxLength: 4 }), fc.nat());
    fc.assert(
      fc.property(mutated, ([series, edits, cut]) => {
        const body = Buffer.from(encode(series));
        for (const [at, b] of edits) body[at % body.length] = b;
        check(body);
        check(body.subarray(0, cut % (body.length + 1)));
      }),
      { numRuns: 3000 },
    );
  });

  it('round-trips encoder output', () => {
    fc.assert(
      fc.property(fc.array(seriesArb, { maxLength: 4 }), (series) => {
        const rows = parse(encode(series)).rows;
        const want = series.flatMap((s) => s.samples.map(([t, v]) => ({ labels: s.labels, t, v })));
        expect(rows.length).toBe(want.length);
        rows.forEach((row, i) => {
          expect(row.labels).toEqual(want[i]!.labels);
          expect(row.timestamp).toBe(want[i]!.t);
          expect(Object.is(row.value, want[i]!.v) || (Number.isNaN(row.value) && Number.isNaN(want[i]!.v))).toBe(true);
        });
      }),
      { numRuns: 1000 },
    );
  });
});
