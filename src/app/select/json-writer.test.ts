import { describe, expect, it } from 'vitest';
import { formatSampleValue, formatTimestampSeconds, labelsJson, matrixJsonParts } from './json-writer.ts';

describe('json-writer', () => {
  it('spells values and timestamps as Prometheus does', () => {
    const f = (v: number, want: string) => expect(formatSampleValue(v)).toBe(want);
    f(NaN, 'NaN');
    f(Infinity, '+Inf');
    f(-Infinity, '-Inf');
    f(0.1 + 0.2, '0.30000000000000004');
    // JavaScript's shortest form; Prometheus writes 1000000000000000000000. Clients parse both.
    f(1e21, '1e+21');
    const t = (ms: number, want: string) => expect(formatTimestampSeconds(ms)).toBe(want);
    t(1_500, '1.5');
    t(-1_500, '-1.5');
    t(1_795_248_000_000, '1795248000');
    t(1, '0.001');
  });

  it('renders matrices as valid JSON with escaped labels, sharing timestamp prefixes between series', () => {
    const f = (matrix: Parameters<typeof matrixJsonParts>[0], want: unknown) => expect(JSON.parse(Buffer.concat(matrixJsonParts(matrix)).toString())).toEqual(want);
    const ts = Float64Array.of(1_000, 61_000);
    f([], []);
    f([
      { labels: [{ name: '__name__', value: 'a"b' }, { name: 'x', value: '\\n\u2028' }], timestamps: ts, values: Float64Array.of(1, NaN) },
      { labels: [], timestamps: ts.subarray(1), values: Float64Array.of(-Infinity) },
      { labels: [{ name: 'empty', value: 'series' }], timestamps: new Float64Array(0), values: new Float64Array(0) },
    ], [
      { metric: { __name__: 'a"b', x: '\\n\u2028' }, values: [[1, '1'], [61, 'NaN']] },
      { metric: {}, values: [[61, '-Inf']] },
      { metric: { empty: 'series' }, values: [] },
    ]);
    expect(labelsJson([{ name: 'a', value: '1' }, { name: 'b', value: '' }])).toBe('{"a":"1","b":""}');
  });
});
