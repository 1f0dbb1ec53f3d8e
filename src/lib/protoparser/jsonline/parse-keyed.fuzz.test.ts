import { describe, it, expect } from 'vitest';
import fc from 'fast-check';
import { KeyedColumns } from '../common/keyed-columns.ts';
import { SeriesKeyDictionary } from '../common/series-keys.ts';
import { anyText, mutatedText } from '../common/testing.ts';
import { parse } from './parse.ts';
import { parseJsonLinesKeyed } from './parse-keyed.ts';

const corpus = [
  '{"metric":{"__name__":"up","job":"node"},"values":[1,0.5,null,"NaN",-0,1e-7],"timestamps":[1,2,3,4,5,6]}\n{"metric":{"a":"b"},"values":[1],"timestamps":[1]}',
  '\ufeff { "timestamps" : [1700000000000] , "values" : ["-Inf"] , "metric" : {"é":"ü","n":1,"t":true,"z":null} }\r\n\n',
  '{"metric":{"__name__":"q\\"\\\\","k":"v"},"values":[12345678901234567890,1.7976931348623157e308],"timestamps":[-5,0]}',
];
const alphabet = '[]{}":,\n\r \t0123456789.-+eEmetricvaluestimestampsnullNaNInf\\u';

// The row values compared bit for bit (-0 and NaN included) with their keys' labels.
const show = (labels: unknown, ts: number, v: number) => `${JSON.stringify(labels)} ${Object.is(ts, -0) ? '-0' : ts} ${Object.is(v, -0) ? '-0' : String(v)}`;

// Each text goes, as UTF-8 bytes, through parseJsonLinesKeyed with one dictionary for all
// texts (later texts find the series of earlier ones), and decoded through parse(). Any
// exception fails the property: bad input must only ever be a counted, described bad line.
function agree(texts: string[]): void {
  const keys = new SeriesKeyDictionary(1 << 20);
  for (const text of texts) {
    const bytes = Buffer.from(text);
    const want = parse(bytes.toString('utf8'), { firstLine: 3 });
    const out = new KeyedColumns(4, keys.table);
    const got = parseJsonLinesKeyed(bytes, { keys, out, firstLine: 3 });
    const rows = out.toRows();
    expect(rows.map((r) => show(r.labels, r.timestamp, r.value))).toEqual(want.rows.map((r) => show(r.labels, r.timestamp, r.value)));
    expect([got.lines, got.errors.count, got.errors.describe()]).toEqual([want.lines, want.errors.count, want.errors.describe()]);
  }
}

// Lines are mostly valid (so rows are compared), with a rare bad or unusual piece here and there.
const rare = <T,>(usual: fc.Arbitrary<T>, unusual: fc.Arbitrary<T>) => fc.oneof({ weight: 12, arbitrary: usual }, { weight: 1, arbitrary: unusual });
const numberText = rare(
  fc.oneof(fc.double({ noNaN: true, noDefaultInfinity: true }).map(String), fc.integer().map(String), fc.double({ min: 0, max: 2e6, noNaN: true }).map((d) => d.toFixed(2))),
  fc.constantFrom('-0', '0.0', '1e3', '1E+3', '-1.5e-3', '1e400', '01', '1.', '.5', '+1', '-', '1e', '0.1000000000000000055511151231257827', '9007199254740993', '1e-400'),
);
// Bare special values are what older VictoriaMetrics exports hold (bare-specials.ts).
const valueText = rare(numberText, fc.constantFrom('null', '"NaN"', '"Inf"', '"-inf"', '"+Inf"', '"1.5"', '"x"', '"\\u004e"', 'true', '[]', '{}', '"é"', 'nul', 'NaN', '+Inf', '-Inf', 'inf', 'Infinity', '-nan', 'Infx', 'nancy'));
const timestampText = rare(fc.integer({ min: -(2 ** 53) + 1, max: 2 ** 53 - 1 }).map(String), numberText);
const metricText = rare(
  fc.dictionary(fc.constantFrom('__name__', 'job', 'a', 'é'), rare<unknown>(fc.constantFrom('x', 'y', 'ü'), fc.oneof(fc.constant(''), fc.integer(), fc.constant(null), fc.boolean())), { minKeys: 1, maxKeys: 3 }).map((d) => JSON.stringify(d)),
  fc.constantFrom('{"a":"1","a":"2"}', '{"a":{}}', '{"a":[1]}', '[]', 'null', '{"a":"1"', '{ "a" : "1" }', '{"\\u0061":"1"}', '{"q\\"":"}"}', '{"":"1"}', '{}'),
);
const ws = rare(fc.constant(''), fc.constantFrom(' ', '\t', '\r', ' \r '));
const lineArb = fc
  .tuple(
    metricText,
    fc.array(fc.tuple(valueText, timestampText), { minLength: 1, maxLength: 5 }),
    rare(fc.constantFrom('mvt', 'tvm', 'vmt'), fc.constantFrom('mv', 'mvtx', 'mvtm', 'xmvt', '')),
    rare(fc.constant(0), fc.constantFrom(-1, 1)),
    ws,
    fc.constantFrom('\n', '\r\n', ' \n', ''),
  )
  .map(([metric, samples, order, skew, w, eol]) => {
    const values = `[${w}${samples.map((s) => s[0]).join(`${w},${w}`)}${w}]`;
    const ts = samples.map((s) => s[1]);
    // skew makes the arrays' lengths differ now and then
    const timestamps = `[${(skew < 0 ? ts.slice(1) : skew > 0 ? [...ts, '7'] : ts).join(',')}]`;
    const field: Record<string, string> = { m: `"metric"${w}:${w}${metric}`, v: `"values":${values}`, t: `"timestamps":${w}${timestamps}`, x: '"x":[{"y":1}]' };
    return `${w}{${w}${order.split('').map((c) => field[c]).join(`${w},`)}${w}}${w}${eol}`;
  });

describe('jsonline parseJsonLinesKeyed fuzz', () => {
  it('agrees with parse on plausible bodies sent again and again', () => {
    const bodies = fc.array(fc.array(lineArb, { maxLength: 5 }).map((ls) => ls.join('\n')), { minLength: 1, maxLength: 3 }).map((b) => [...b, ...b]);
    fc.assert(fc.property(bodies, agree), { numRuns: 600 });
  });
  it('agrees with parse on mutated valid input', () => {
    const texts = fc.array(mutatedText(corpus, alphabet), { minLength: 1, maxLength: 3 }).map((t) => [...t, ...t]);
    fc.assert(fc.property(texts, agree), { numRuns: 1000 });
  });
  it('agrees with parse on arbitrary text', () => {
    fc.assert(fc.property(fc.array(anyText(alphabet), { maxLength: 3 }), agree), { numRuns: 400 });
  });
  it('agrees with parse on any JSON value in any field', () => {
    const line = fc.record({ metric: fc.jsonValue(), values: fc.jsonValue(), timestamps: fc.jsonValue() }, { requiredKeys: [] });
    fc.assert(fc.property(fc.array(line, { maxLength: 3 }), (ls) => agree([ls.map((l) => JSON.stringify(l)).join('\n')])), { numRuns: 400 });
  });
});
