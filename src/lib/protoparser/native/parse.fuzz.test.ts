import { describe, it, expect } from 'vitest';
import fc from 'fast-check';
import { header, encodeSeries } from './write.ts';
import { NativeDecoder } from './parse.ts';
import { ParseError } from '../common/parse-error.ts';
import { canonicalLabels } from '../common/row.ts';

const labelsArb = fc
  .dictionary(fc.string({ minLength: 1, maxLength: 6 }), fc.string({ minLength: 1, maxLength: 6 }), { minKeys: 1, maxKeys: 4 })
  .map((d) => canonicalLabels(Object.entries(d).map(([name, value]) => ({ name, value })), 'reject'));
const safeInt = fc.integer({ min: -(2 ** 53) + 1, max: 2 ** 53 - 1 });
const timestampsArb = fc.oneof(
  fc.array(safeInt, { minLength: 1, maxLength: 30 }),
  fc.tuple(fc.integer({ min: 0, max: 2 ** 42 }), fc.integer({ min: 1, max: 60_000 }), fc.nat({ max: 30 })).map(([t0, step, n]) => Array.from({ length: n + 1 }, (_, i) => t0 + i * step)),
);
// Values: arbitrary doubles, whole numbers (integer encoding), or raw NaN bit patterns.
const valueArb = fc.oneof(fc.double(), safeInt, fc.bigInt({ min: 0n, max: 2n ** 64n - 1n }).map((b) => new Float64Array(new BigUint64Array([b]).buffer)[0]!));
const seriesArb = timestampsArb.chain((ts) =>
  fc.record({ labels: labelsArb, ts: fc.constant(ts), vs: fc.array(valueArb, { minLength: ts.length, maxLength: ts.length }), per: fc.integer({ min: 1, max: 10 }) }),
);

const bits = (v: number): bigint => new BigUint64Array(Float64Array.of(v).buffer)[0]!;

function decodeAll(body: Uint8Array, chunk: number): { series: number; error?: ParseError } {
  const d = new NativeDecoder();
  let series = 0;
  try {
    for (let i = 0; i < body.length; i += chunk) series += d.push(body.subarray(i, i + chunk)).length;
    d.end();
  } catch (e) {
    if (!(e instanceof ParseError)) throw e;
    return { series, error: e };
  }
  return { series };
}

describe('native fuzz', () => {
  it('round-trips any series bit-exactly, whatever the chunking', () => {
    fc.assert(
      fc.property(fc.array(seriesArb, { maxLength: 3 }), fc.integer({ min: 1, max: 64 }), (all, chunk) => {
        const body = Buffer.concat([header(), ...all.map((s) => encodeSeries(s.labels, s.ts, Float64Array.from(s.vs), s.per))]);
        const d = new NativeDecoder();
        const got = [];
        for (let i = 0; i < body.length; i += chunk) got.push(...d.push(body.subarray(i, i + chunk)));
        d.end();
        const ts = got.flatMap((s) => [...s.timestamps]);
        const vs = got.flatMap((s) => [...s.values].map(bits));
        expect(ts).toEqual(all.flatMap((s) => s.ts));
        expect(vs).toEqual(all.flatMap((s) => [...Float64Array.from(s.vs)].map(bits)));
        for (const s of got) expect(all.some((a) => JSON.stringify(a.labels) === JSON.stringify(s.labels))).toBe(true);
      }),
      { numRuns: 800 },
    );
  });

  it('gives series or a ParseError on arbitrary and damaged bytes', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 200 }), fc.integer({ min: 1, max: 16 }), (bytes, chunk) => {
        decodeAll(Buffer.concat([header(), bytes]), chunk);
        decodeAll(bytes, chunk);
      }),
      { numRuns: 2000 },
    );
    fc.assert(
      fc.property(seriesArb, fc.array(fc.tuple(fc.nat(), fc.integer({ min: 0, max: 255 })), { minLength: 1, maxLength: 3 }), fc.nat(), (s, edits, cut) => {
        const body = Buffer.concat([header(), encodeSeries(s.labels, s.ts, Float64Array.from(s.vs), s.per)]);
        const damaged = Buffer.from(body);
        for (const [at, b] of edits) damaged[at % damaged.length] = b;
        const res = decodeAll(damaged, 7);
        if (!damaged.equals(body)) expect(res.error !== undefined || res.series > 0).toBe(true);
        // a prefix decodes cleanly only when it ends at a block boundary
        const boundaries = [8];
        for (let p = 8; p < body.length; ) boundaries.push((p += 8 + body.readUInt32LE(p)));
        const at = cut % body.length;
        expect(decodeAll(body.subarray(0, at), 5).error === undefined).toBe(boundaries.includes(at));
      }),
      { numRuns: 1500 },
    );
  });
});
