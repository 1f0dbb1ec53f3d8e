import { describe, it, expect } from 'vitest';
import fc from 'fast-check';
import { KeyedColumns } from '../common/keyed-columns.ts';
import type { MetadataUpdate } from '../common/metadata.ts';
import { SeriesKeyDictionary } from '../common/series-keys.ts';
import { anyText, mutatedText } from '../common/testing.ts';
import { MetadataCapture } from './metadata.ts';
import { parse } from './parse.ts';
import { parseKeyedBytes } from './parse-keyed-bytes.ts';

const corpus = [
  'foo{a="1",b="x\\"y\\\\z\\n"} 1.5 123\nbar 2',
  '# HELP x y\n# TYPE x counter\nx_total{le="+Inf"} NaN # {t="1"} 2 3\n',
  '# HELP "my.m" a \\\\ b\\n c\n#\tTYPE  up  untyped \r\n# UNIT up seconds\n# TYPE up nope\n#HELP up x\n# EOF\n',
  '{"my.metric","a.b"="c"} -Inf 5\r\nfoo {a="1",} 1e-3',
  'node_cpu_seconds_total{cpu="0",mode="idle"} 98765.43 1700000000000\nnode_cpu_seconds_total{cpu="0",mode="user"} 1.5\n',
  'up 1\nup_total 2\nup {a="}"} 3\nup\t4\nv -0.5e+3 -7\nv 00012.50 +8\r\n',
];
const alphabet = '{}",=\\ #\n\t\r.eE+-0123456789abn_:IiNnf\ufeffüHELPTYU';

const show = (labels: unknown, ts: number, v: number, raw: unknown) => `${JSON.stringify(labels)} ${ts} ${Object.is(v, -0) ? '-0' : String(v)} ${String(raw)}`;

// Each text goes, as UTF-8 bytes, through parseKeyedBytes with one dictionary for all texts (later
// texts hit keys, byte keys and predictions of earlier ones), and decoded through parse().
function agree(texts: string[], budget: number): void {
  const keys = new SeriesKeyDictionary(budget);
  for (const text of texts) {
    const bytes = Buffer.from(text);
    const wantMeta: MetadataUpdate[] = [];
    const gotMeta: MetadataUpdate[] = [];
    const want = parse(bytes.toString('utf8'), { now: () => 7, metadata: new MetadataCapture((u) => wantMeta.push(u)) });
    const out = new KeyedColumns(4, keys.table);
    const got = parseKeyedBytes(bytes, { now: () => 7, keys, out, metadata: new MetadataCapture((u) => gotMeta.push(u)) });
    // The metadata of HELP, TYPE and UNIT lines, read from bytes, is what the text parser reads.
    expect(gotMeta).toEqual(wantMeta);
    expect(out.toRows().map((r) => show(r.labels, r.timestamp, r.value, r.rawKey))).toEqual(want.rows.map((r) => show(r.labels, r.timestamp, r.value, r.rawKey)));
    expect([got.lines, got.errors.describe()]).toEqual([want.lines, want.errors.describe()]);
    keys.trim();
  }
}

// Plausible scrapes: a few series in varying order, values and timestamps in every spelling.
const keysArb = fc.constantFrom('up', 'up_total', 'up{job="a"}', 'up {job="b"}', 'm{a="x y",b="}"}', '{"my.m","q"="ü"}', 'n{a=""}');
const numberArb = fc.oneof(
  fc.double().map(String),
  fc.integer().map(String),
  fc.constantFrom('1e3', '-1.5E-3', '+7', '.5', '5.', '-0', '007', '1e', 'NaN', '+Inf', '1_0', '0x1', '123456789012345678'),
);
const metadataLine = fc.constantFrom('# HELP up Up or down.\n', '# TYPE up gauge\n', '# UNIT up seconds\r\n', '# HELP m{a="x y",b="}"} odd\n', '# HELP "my.m" esc \\\\ \\n \\x\n', '#  TYPE\tup_total counter \n', '# TYPE up bogus\n', '# HELPup x\n', '# HELP\n', '# a comment\n', '# HELP ü ü\n');
const sampleLine = fc.tuple(keysArb, fc.constantFrom(' ', '\t', '  ', ''), numberArb, fc.option(fc.oneof(fc.integer().map(String), fc.constantFrom('-5', '+5', '1.5', '1234567890123456'))), fc.constantFrom('\n', '\r\n', ' \n', ' # c\n'))
  .map(([k, sep, v, ts, eol]) => `${k}${sep}${v}${ts === null ? '' : ` ${ts}`}${eol}`);
const lineArb = fc.oneof({ weight: 4, arbitrary: sampleLine }, { weight: 1, arbitrary: metadataLine });

describe('prometheus parseKeyedBytes fuzz', () => {
  it('agrees with parse on plausible scrapes sent again and again', () => {
    const scrapes = fc.array(fc.array(lineArb, { maxLength: 8 }).map((ls) => ls.join('')), { minLength: 1, maxLength: 4 }).map((t) => [...t, ...t]);
    fc.assert(fc.property(scrapes, (t) => agree(t, 1 << 20)), { numRuns: 500 });
  });
  it('agrees with parse on arbitrary text', () => {
    fc.assert(fc.property(fc.array(anyText(alphabet), { maxLength: 4 }), (texts) => agree(texts, 1 << 20)), { numRuns: 300 });
  });
  it('agrees with parse on mutated valid input seen again and again', () => {
    const texts = fc.array(mutatedText(corpus, alphabet), { minLength: 1, maxLength: 4 }).map((t) => [...t, ...t, t.join('\n')]);
    fc.assert(fc.property(texts, fc.constantFrom(300, 1 << 20), (t, budget) => agree(t, budget)), { numRuns: 500 });
  });
});
