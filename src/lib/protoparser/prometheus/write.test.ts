import { describe, it, expect } from 'vitest';
import fc from 'fast-check';
import { writeSample, writeSamples, writeSeriesKey } from './write.ts';
import { parse } from './parse.ts';
import { canonicalLabels, type Label } from '../common/row.ts';
import { STALE_NAN } from '../../storageapi/index.ts';

const L = (obj: Record<string, string>): Label[] => Object.entries(obj).map(([name, value]) => ({ name, value }));

describe('prometheus write', () => {
  it('renders one sample per line', () => {
    const f = (labels: Record<string, string>, value: number, ts: number, want: string): void => {
      expect(writeSample(L(labels), value, ts)).toBe(want);
    };
    f({ __name__: 'up', job: 'a' }, 1, 1700000000000, 'up{job="a"} 1 1700000000000\n');
    f({ __name__: 'up' }, 0.1, 5, 'up 0.1 5\n');
    f({ __name__: 'x' }, NaN, 5, 'x NaN 5\n');
    f({ __name__: 'x' }, Infinity, 5, 'x +Inf 5\n');
    f({ __name__: 'x' }, -Infinity, 5, 'x -Inf 5\n');
    f({ __name__: 'x' }, -0, 5, 'x -0 5\n');
    f({ __name__: 'x' }, 1e21, 5, 'x 1e+21 5\n');
    f({ __name__: 'x', a: 'q"\\\n' }, 2, 5, 'x{a="q\\"\\\\\\n"} 2 5\n');
    // names outside the classic charset use the quoted form
    f({ __name__: 'my.metric', 'a.b': 'v' }, 1, 5, '{"my.metric","a.b"="v"} 1 5\n');
    f({ __name__: 'ok', 'a-b': 'v' }, 1, 5, 'ok{"a-b"="v"} 1 5\n');
    // staleness markers are omitted
    f({ __name__: 'x' }, STALE_NAN, 5, '');
  });

  it('renders a series and skips stale samples', () => {
    expect(writeSamples(L({ __name__: 'm', a: '1' }), [1, 2, 3], Float64Array.of(1.5, STALE_NAN, 3))).toBe('m{a="1"} 1.5 1\nm{a="1"} 3 3\n');
    expect(writeSeriesKey(L({ a: '1' }))).toBe('{a="1"}');
  });

  it('round-trips through the parser', () => {
    const name = fc.string({ minLength: 1, maxLength: 12 });
    const labels = fc.dictionary(fc.string({ minLength: 1, maxLength: 8 }).filter((n) => n !== '__name__'), fc.string({ minLength: 1, maxLength: 8 }), { maxKeys: 4 });
    const sample = fc.record({
      name,
      labels,
      value: fc.double(),
      ts: fc.integer({ min: -(2 ** 53) + 1, max: 2 ** 53 - 1 }),
    });
    fc.assert(
      fc.property(sample, ({ name, labels, value, ts }) => {
        const want = canonicalLabels([{ name: '__name__', value: name }, ...L(labels)], 'reject');
        const text = writeSample(want, value, ts);
        const r = parse(text, { now: () => 0 });
        expect(r.errors.describe()).toBe('');
        expect(r.rows).toHaveLength(1);
        const row = r.rows[0]!;
        expect(row.labels).toEqual(want);
        expect(Object.is(row.value, value) || (Number.isNaN(row.value) && Number.isNaN(value))).toBe(true);
        expect(row.timestamp).toBe(ts);
      }),
      { numRuns: 2000 },
    );
  });
});
