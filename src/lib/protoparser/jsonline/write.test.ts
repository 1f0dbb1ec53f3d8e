import { describe, it, expect } from 'vitest';
import fc from 'fast-check';
import { getHeapSpaceStatistics } from 'node:v8';
import { jsonValue, writeMetric, writeSeries, writeSeriesView } from './write.ts';
import { STALE_NAN } from '../../storageapi/stale.ts';
import { parse } from './parse.ts';
import { canonicalLabels, type Label } from '../common/row.ts';

const L = (obj: Record<string, string>): Label[] => Object.entries(obj).map(([name, value]) => ({ name, value }));

describe('jsonline write', () => {
  it('renders series lines', () => {
    const f = (labels: Record<string, string>, ts: number[], vs: number[], max: number, want: string): void => {
      expect(writeSeries(L(labels), ts, vs, max)).toBe(want);
    };
    f({ __name__: 'up', job: 'a' }, [1, 2], [1, 0.5], 0, '{"metric":{"__name__":"up","job":"a"},"values":[1,0.5],"timestamps":[1,2]}\n');
    f({ __name__: 'm' }, [1, 2, 3], [NaN, Infinity, -Infinity], 0, '{"metric":{"__name__":"m"},"values":["NaN","Inf","-Inf"],"timestamps":[1,2,3]}\n');
    f({ __name__: 'm', 'q"\n': 'v\\' }, [5], [-0], 0, '{"metric":{"__name__":"m","q\\"\\n":"v\\\\"},"values":[-0],"timestamps":[5]}\n');
    // max_rows_per_line splits long series
    f({ __name__: 'm' }, [1, 2, 3], [1, 2, 3], 2, '{"metric":{"__name__":"m"},"values":[1,2],"timestamps":[1,2]}\n{"metric":{"__name__":"m"},"values":[3],"timestamps":[3]}\n');
    f({ __name__: 'm' }, [], [], 0, '');
  });

  it('round-trips through the parser', () => {
    const labels = fc
      .dictionary(fc.string({ minLength: 1, maxLength: 8 }), fc.string({ minLength: 1, maxLength: 8 }), { minKeys: 1, maxKeys: 4 })
      .map((d) => canonicalLabels(L(d), 'reject'));
    const samples = fc.array(fc.tuple(fc.integer({ min: -(2 ** 53) + 1, max: 2 ** 53 - 1 }), fc.double()), { minLength: 1, maxLength: 20 });
    fc.assert(
      fc.property(labels, samples, fc.nat({ max: 7 }), (ls, ss, max) => {
        const text = writeSeries(ls, ss.map((s) => s[0]), ss.map((s) => s[1]), max);
        const r = parse(text);
        expect(r.errors.describe()).toBe('');
        expect(r.rows).toHaveLength(ss.length);
        r.rows.forEach((row, i) => {
          expect(row.labels).toEqual(ls);
          expect(row.timestamp).toBe(ss[i]![0]);
          const v = ss[i]![1];
          expect(Object.is(row.value, v) || (Number.isNaN(v) && Number.isNaN(row.value))).toBe(true);
        });
      }),
      { numRuns: 1000 },
    );
  });

  // The writer's shortcuts (integer digits, PlainDecimals, DoubleDigits from the first value
  // PlainDecimals declines, the remembered timestamps of the previous series) must give exactly
  // the text of the plain definition: String() of every number, jsonValue's spellings.
  it('writes what String and jsonValue spell, series after series', () => {
    const reference = (ls: Label[], ts: number[], vs: number[], max: number): string => {
      const step = max > 0 ? max : ts.length;
      let text = '';
      for (let from = 0; from < ts.length; from += step) {
        const to = Math.min(ts.length, from + step);
        text += `{"metric":${writeMetric(ls)},"values":[${vs.slice(from, to).map(jsonValue).join(',')}],"timestamps":[${ts.slice(from, to).map(String).join(',')}]}\n`;
      }
      return text;
    };
    const decimal = fc.tuple(fc.integer({ min: -(10 ** 12), max: 10 ** 12 }), fc.integer({ min: 0, max: 9 })).map(([m, k]) => m / 10 ** k);
    const value = fc.oneof(
      { weight: 4, arbitrary: decimal },
      { weight: 2, arbitrary: fc.integer({ min: -1e6, max: 1e6 }) },
      { weight: 1, arbitrary: fc.double() },
      { weight: 1, arbitrary: fc.constantFrom(0, -0, NaN, STALE_NAN, Infinity, -Infinity, 2 ** 53, 1e21, 1e-7) },
    );
    const start = fc.integer({ min: -(2 ** 40), max: 2 ** 42 });
    const series = fc.tuple(fc.array(value, { minLength: 0, maxLength: 30 }), start, fc.constantFrom(1, 15_000, 60_000), fc.boolean(), fc.boolean());
    fc.assert(
      fc.property(fc.array(series, { minLength: 1, maxLength: 6 }), fc.nat({ max: 7 }), (list, max) => {
        let shared: number[] = [];
        for (const [vs, t0, dt, reuse, jitter] of list) {
          // Consecutive series share their timestamps (reuse) or almost (jitter on the last one).
          let ts = reuse && shared.length >= vs.length ? shared.slice(0, vs.length) : vs.map((_, i) => t0 + i * dt);
          if (jitter && ts.length > 0) ts = [...ts.slice(0, -1), ts[ts.length - 1]! + 1];
          shared = ts;
          const ls = L({ __name__: 'm' });
          const want = reference(ls, ts, vs, max);
          expect(writeSeries(ls, ts, vs, max)).toBe(want);
          expect(Buffer.from(writeSeriesView(ls, Float64Array.from(ts), Float64Array.from(vs), max)).toString()).toBe(want);
        }
      }),
      { numRuns: 500 },
    );
  });

  // String(v) of a double allocates its text in V8's old generation (number-to-string cache):
  // 300,000 values would leave about 10 MB of old-generation garbage behind.
  it('leaves no per-value garbage in the old generation', () => {
    const ts = Array.from({ length: 1500 }, (_, i) => 1_795_172_460_000 + i * 60_000);
    const series = Array.from({ length: 200 }, (_, k) => ts.map((t) => Math.sin(t + k) * 1e4));
    const oldUsed = () => getHeapSpaceStatistics().find((x) => x.space_name === 'old_space')!.space_used_size;
    writeSeriesView(L({ __name__: 'm' }), ts, series[0]!); // compiles the code first
    const before = oldUsed();
    let bytes = 0;
    for (const vs of series) bytes += writeSeriesView(L({ __name__: 'm' }), ts, vs).length;
    expect(bytes).toBeGreaterThan(300_000 * 20);
    // Per-value garbage would be ~10 MB; what else reaches the old generation meanwhile (the loop's
    // own objects promoted by a scavenge) varied up to ~2 MB with the collector's timing under load.
    expect(oldUsed() - before).toBeLessThan(4 * 2 ** 20);
  });
});
