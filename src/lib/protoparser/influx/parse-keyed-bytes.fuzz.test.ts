import { describe, it, expect } from 'vitest';
import fc from 'fast-check';
import { KeyedColumns } from '../common/keyed-columns.ts';
import { SeriesKeyDictionary } from '../common/series-keys.ts';
import { anyText, mutatedText } from '../common/testing.ts';
import { parse, type InfluxParseOptions } from './parse.ts';
import { parseInfluxKeyedBytes } from './parse-keyed-bytes.ts';

const corpus = [
  'cpu,host=a,region=us\\ west usage=1.5,idle=2i,ok=t,msg="hi, there" 1700000000000000000\nmem free=3u',
  'm\\ x\\,y,t\\=k=v\\,w f\\=1=1 -5\r\n# c\n,x=1 f=2',
  'weather,location=us-midwest temperature=82 1465839830100400200\nm s="a \\" b",v=-1e-3 0',
  'node_cpu_seconds,cpu=0,mode=idle total=1125549.96 1795161660000000000\nnode_load1,instance=h:9100 gauge=0.5 1795161660000000000\nn a=1,b=2i,c=-3i,d=4u,e=true,f=F 17',
];
const alphabet = ',= \\"\n\r#.-0123456789iutfTFe';

const show = (labels: unknown, ts: number, v: number) => `${JSON.stringify(labels)} ${ts} ${Object.is(v, -0) ? '-0' : String(v)}`;

// Each text goes, as UTF-8 bytes, through parseInfluxKeyedBytes with one dictionary for all texts
// (later texts hit keys and predictions of earlier ones), and decoded through parse().
function agree(texts: string[], o: Omit<InfluxParseOptions, 'now'>): void {
  const keys = new SeriesKeyDictionary(1 << 20);
  for (const text of texts) {
    const bytes = Buffer.from(text);
    const want = parse(bytes.toString('utf8'), { ...o, now: () => 7 });
    const out = new KeyedColumns(4, keys.table);
    const got = parseInfluxKeyedBytes(bytes, { ...o, now: () => 7, keys, out });
    const rows = out.toRows();
    expect(rows.map((r) => show(r.labels, r.timestamp, r.value))).toEqual(want.rows.map((r) => show(r.labels, r.timestamp, r.value)));
    expect(rows.every((r) => r.rawKey === undefined)).toBe(true);
    expect([got.lines, got.errors.describe()]).toEqual([want.lines, want.errors.describe()]);
  }
}

const optionsArb = fc.record({
  precision: fc.constantFrom('ns' as const, 'us' as const, 'ms' as const, 's' as const, 'h' as const),
  db: fc.constantFrom('', 'd'),
  skipSingleField: fc.boolean(),
  skipMeasurement: fc.boolean(),
});
const lineArb = fc.tuple(
  fc.constantFrom('cpu', 'cpu,host=a', 'cpu,host=b,db=x', ',x=1', 'mem\\ x', 'ü,t=é'),
  fc.array(fc.tuple(fc.constantFrom('a', 'b', 'value', 'é'), fc.oneof(fc.double().map(String), fc.integer().map((i) => `${i}i`), fc.nat().map((i) => `${i}u`), fc.constantFrom('t', 'False', '1e3', '-0', '"s"', 'NaN', '12345678901234567890i', '1.5i', ''))), { minLength: 1, maxLength: 3 }),
  fc.option(fc.oneof(fc.integer().map(String), fc.constantFrom('0', '-0', '00', '1795161660000000000', '99999999999999999999999', '1.5'))),
  fc.constantFrom('\n', '\r\n', ' \n', '  '),
).map(([series, fields, ts, eol]) => `${series} ${fields.map(([k, v]) => `${k}=${v}`).join(',')}${ts === null ? '' : ` ${ts}`}${eol}`);

describe('influx parseInfluxKeyedBytes fuzz', () => {
  it('agrees with parse on plausible bodies sent again and again', () => {
    const bodies = fc.array(fc.array(lineArb, { maxLength: 6 }).map((ls) => ls.join('')), { minLength: 1, maxLength: 3 }).map((b) => [...b, ...b]);
    fc.assert(fc.property(bodies, optionsArb, (b, o) => agree(b, o)), { numRuns: 500 });
  });
  it('agrees with parse on mutated valid input', () => {
    const texts = fc.array(mutatedText(corpus, alphabet), { minLength: 1, maxLength: 3 }).map((t) => [...t, ...t]);
    fc.assert(fc.property(texts, optionsArb, (t, o) => agree(t, o)), { numRuns: 500 });
  });
  it('agrees with parse on arbitrary text', () => {
    fc.assert(fc.property(fc.array(anyText(alphabet), { maxLength: 3 }), optionsArb, (t, o) => agree(t, o)), { numRuns: 300 });
  });
});
