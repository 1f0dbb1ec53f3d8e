import fc from 'fast-check';
import { getHeapSpaceStatistics } from 'node:v8';
import { describe, expect, it } from 'vitest';
import { ByteWriter } from '../../lib/bytes/index.ts';
import { formatSampleValue, formatTimestampSeconds, labelsJson, matrixJson, pointJson, seriesListJson, vectorJson, writeJsonString } from './json-writer.ts';

describe('json-writer', () => {
  it('renders a series list as JSON.stringify renders the label sets as objects, or declines', () => {
    const asObjects = (sets: { name: string; value: string }[][], isPartial?: boolean) => {
      const data = sets.map((labels) => {
        const o: Record<string, string> = {};
        for (const l of labels) o[l.name] = l.value;
        return o;
      });
      return JSON.stringify(isPartial === undefined ? { status: 'success', data } : { status: 'success', data, isPartial });
    };
    const name = fc.oneof(fc.string(), fc.constantFrom('__name__', '0', '12', '01', '-1', '__proto__', 'constructor', 'a\u0000b', '\ud800'));
    const sets = fc.array(fc.uniqueArray(fc.record({ name, value: fc.string({ unit: 'binary' }) }), { selector: (l) => l.name, maxLength: 6 }), { maxLength: 5 });
    fc.assert(fc.property(sets, fc.option(fc.boolean(), { nil: undefined }), (ss, partial) => {
      const got = seriesListJson(ss, partial);
      const declined = ss.some((ls) => ls.some((l) => /^\d+$/.test(l.name) || l.name === '__proto__'));
      expect(got === undefined).toBe(declined);
      if (got !== undefined) expect(got.toString('latin1')).toBe(Buffer.from(asObjects(ss, partial)).toString('latin1'));
    }), { numRuns: 500 });
    expect(seriesListJson([])?.toString()).toBe('{"status":"success","data":[]}');
    expect(seriesListJson([[{ name: '__name__', value: 'up' }, { name: 'job', value: 'a"b' }]], false)?.toString()).toBe('{"status":"success","data":[{"__name__":"up","job":"a\\"b"}],"isPartial":false}');
  });

  it('renders an instant vector as the labels and points spelled one by one, in UTF-8', () => {
    const label = fc.record({ name: fc.string({ unit: 'binary' }), value: fc.string({ unit: 'binary' }) });
    const sample = fc.record({ labels: fc.array(label, { maxLength: 5 }), timestamp: fc.integer({ min: 0, max: 2 ** 42 }), value: fc.double() });
    fc.assert(fc.property(fc.array(sample, { maxLength: 6 }), (vector) => {
      const want = `{"h":[${vector.map((s) => `{"metric":${labelsJson(s.labels)},"value":${pointJson(s.timestamp, s.value)}}`).join(',')}]}`;
      const got = vectorJson('{"h":[', vector, ']}');
      expect(got.toString('latin1')).toBe(Buffer.from(want).toString('latin1'));
      expect(JSON.parse(got.toString())).toEqual(JSON.parse(want));
    }), { numRuns: 500 });
  });

  it('writes strings as JSON.stringify spells them', () => {
    fc.assert(fc.property(fc.string({ unit: 'binary' }), fc.string({ unit: 'grapheme-ascii' }), (a, b) => {
      const w = new ByteWriter(1);
      writeJsonString(w, a);
      writeJsonString(w, b);
      expect(w.bytes().toString('latin1')).toBe(Buffer.from(JSON.stringify(a) + JSON.stringify(b)).toString('latin1'));
    }), { numRuns: 1000 });
  });

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
    const f = (matrix: Parameters<typeof matrixJson>[1], want: unknown) => expect(JSON.parse(matrixJson('{"result":', matrix, '}').toString())).toEqual({ result: want });
    const ts = Float64Array.of(1_000, 61_000);
    f([], []);
    f([
      { labels: [{ name: '__name__', value: 'a"b' }, { name: 'x', value: '\\n\u2028' }], timestamps: ts, values: Float64Array.of(1, NaN) },
      { labels: [], timestamps: ts.subarray(1), values: Float64Array.of(-Infinity) },
      { labels: [{ name: 'empty', value: 'series' }], timestamps: new Float64Array(0), values: new Float64Array(0) },
      { labels: [{ name: 'ü', value: '€' }], timestamps: Float64Array.of(1.5, 2, 3, 4), values: Float64Array.of(-0, Infinity, -2.2250738585072014e-308, 1e21) },
    ], [
      { metric: { __name__: 'a"b', x: '\\n\u2028' }, values: [[1, '1'], [61, 'NaN']] },
      { metric: {}, values: [[61, '-Inf']] },
      { metric: { empty: 'series' }, values: [] },
      { metric: { ü: '€' }, values: [[0.0015, '0'], [0.002, '+Inf'], [0.003, '-2.2250738585072014e-308'], [0.004, '1e+21']] },
    ]);
    expect(labelsJson([{ name: 'a', value: '1' }, { name: 'b', value: '' }])).toBe('{"a":"1","b":""}');
  });

  // Values and timestamps are spelled exactly as formatSampleValue and formatTimestampSeconds
  // spell them one by one, whatever the doubles, and nothing is cut off (the buffer is sized up front).
  it('renders any doubles as the per-value functions do', () => {
    const series = fc.array(fc.double(), { maxLength: 40 }).chain((vs) => fc.record({
      labels: fc.array(fc.record({ name: fc.string(), value: fc.string() }), { maxLength: 3 }),
      values: fc.constant(Float64Array.from(vs)),
      timestamps: fc.array(fc.double({ noNaN: true, noDefaultInfinity: true }), { minLength: vs.length, maxLength: vs.length }).map((t) => Float64Array.from(t)),
    }));
    fc.assert(fc.property(fc.array(series, { maxLength: 5 }), fc.string(), (matrix, tail) => {
      const text = matrixJson('[', matrix, `,${JSON.stringify(tail)}]`).toString();
      const want = matrix.map((s) => ({
        metric: JSON.parse(labelsJson(s.labels)) as unknown,
        values: Array.from(s.timestamps, (t, i) => [Number(formatTimestampSeconds(t)), formatSampleValue(s.values[i]!)]),
      }));
      expect(JSON.parse(text)).toEqual([want, tail]);
    }));
  });

  // String(v) of a double allocates its text in V8's old generation (number-to-string cache):
  // 300,000 values would leave about 10 MB of old-generation garbage behind.
  it('leaves no per-value garbage in the old generation', () => {
    const ts = Float64Array.from({ length: 1500 }, (_, i) => 1_795_172_460_000 + i * 60_000);
    const matrix = Array.from({ length: 200 }, (_, k) => ({ labels: [{ name: 'k', value: String(k) }], timestamps: ts, values: ts.map((t) => Math.sin(t + k) * 1e4) }));
    const oldUsed = () => getHeapSpaceStatistics().find((s) => s.space_name === 'old_space')!.space_used_size;
    matrixJson('', matrix.slice(0, 1), ''); // compiles the code first
    const before = oldUsed();
    const body = matrixJson('', matrix, '');
    expect(body.length).toBeGreaterThan(300_000 * 20);
    expect(oldUsed() - before).toBeLessThan(2 * 2 ** 20);
  });
});
