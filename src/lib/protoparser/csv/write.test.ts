import { describe, it, expect } from 'vitest';
import fc from 'fast-check';
import { writeSeries } from './write.ts';
import { parse } from './parse.ts';
import { importFormatFor, parseExportFormat, parseFormat } from './format.ts';
import { canonicalLabels, type Label } from '../common/row.ts';

const L = (obj: Record<string, string>): Label[] => Object.entries(obj).map(([name, value]) => ({ name, value }));

describe('csv write', () => {
  it('renders one record per sample', () => {
    const f = (format: string, labels: Record<string, string>, ts: number[], vs: number[], want: string): void => {
      expect(writeSeries(parseExportFormat(format), L(labels), ts, vs)).toBe(want);
    };
    f('__name__,__value__,__timestamp__:unix_s', { __name__: 'up', job: 'a' }, [1700000000000, 1700000000500], [1, 0], 'up,1,1700000000\nup,0,1700000000.5\n');
    f('__timestamp__,job,__value__,missing', { __name__: 'up', job: 'a,"b"' }, [5], [NaN], '5,"a,""b""",NaN,\n');
    f('__value__,__timestamp__:rfc3339', { __name__: 'x' }, [1700000000123], [-Infinity], '-Inf,2023-11-14T22:13:20.123Z\n');
    f('__value__,__timestamp__:unix_ns', { __name__: 'x' }, [1], [0.1], '0.1,1000000\n');
    f('__value__', { __name__: 'x' }, [], [], '');
  });

  it('round-trips through the importer', () => {
    const labelNames = fc.uniqueArray(fc.constantFrom('job', 'instance', 'a b', 'quote"d', 'colon:x'), { maxLength: 3 });
    const value = fc.string({ minLength: 1, maxLength: 6, unit: fc.constantFrom('a', ',', '"', '\n', '\r', ' ', 'é') });
    const unit = fc.constantFrom('unix_s', 'unix_ms', 'unix_ns', 'rfc3339');
    const samples = fc.array(fc.tuple(fc.integer({ min: 0, max: 253402300799999 }), fc.double()), { minLength: 1, maxLength: 5 });
    fc.assert(
      fc.property(labelNames, fc.array(value, { minLength: 5, maxLength: 5 }), value, unit, samples, (names, values, name, u, ss) => {
        const labels = canonicalLabels([{ name: '__name__', value: name }, ...names.map((n, i) => ({ name: n, value: values[i]! }))], 'reject');
        const columns = parseExportFormat(['__name__', '__value__', `__timestamp__:${u}`, ...names].join(','));
        const text = writeSeries(columns, labels, ss.map((s) => s[0]), ss.map((s) => s[1]));
        const r = parse(text, { format: parseFormat(importFormatFor(columns)), now: () => 0 });
        expect(r.errors.describe()).toBe('');
        expect(r.rows).toHaveLength(ss.length);
        r.rows.forEach((row, i) => {
          expect(row.labels).toEqual(labels);
          expect(row.timestamp).toBe(ss[i]![0]);
          const v = ss[i]![1];
          expect(Object.is(row.value, v) || (Number.isNaN(v) && Number.isNaN(row.value))).toBe(true);
        });
      }),
      { numRuns: 1000 },
    );
  });
});
