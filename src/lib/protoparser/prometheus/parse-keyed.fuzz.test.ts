import { describe, it, expect } from 'vitest';
import fc from 'fast-check';
import { KeyedColumns } from '../common/keyed-columns.ts';
import type { MetadataUpdate } from '../common/metadata.ts';
import { SeriesKeyDictionary } from '../common/series-keys.ts';
import { anyText, mutatedText } from '../common/testing.ts';
import { MetadataCapture } from './metadata.ts';
import { parse } from './parse.ts';
import { parseKeyed } from './parse-keyed.ts';

const corpus = [
  'foo{a="1",b="x\\"y\\\\z\\n"} 1.5 123\nbar 2',
  '# HELP x y\n# TYPE x counter\nx_total{le="+Inf"} NaN # {t="1"} 2 3\n',
  '# HELP "my.m" a \\\\ b\\n c\n#\tTYPE  up  untyped \r\n# UNIT up seconds\n# TYPE up nope\n#HELP up x\n# EOF\n',
  '{"my.metric","a.b"="c"} -Inf 5\r\nfoo {a="1",} 1e-3',
  'node_cpu_seconds_total{cpu="0",mode="idle"} 98765.43\nnode_cpu_seconds_total{cpu="0",mode="user"} 1.5\n',
  'up 1\nup_total 2\nup {a="}"} 3\nup\t4',
];
const alphabet = '{}",=\\ #\n\t\r.eE+-0123456789abn_:IiNnf\ufeff';

const show = (labels: unknown, ts: number, v: number) => `${JSON.stringify(labels)} ${ts} ${Object.is(v, -0) ? '-0' : String(v)}`;

// Every text is parsed by parse() alone and by parseKeyed() with one dictionary shared by all the
// texts (so later texts hit keys and predictions of earlier ones): rows and errors must agree.
function agree(texts: string[], budget: number): void {
  const keys = new SeriesKeyDictionary(budget);
  for (const text of texts) {
    const wantMeta: MetadataUpdate[] = [];
    const gotMeta: MetadataUpdate[] = [];
    const want = parse(text, { now: () => 7, metadata: new MetadataCapture((u) => wantMeta.push(u)) });
    const out = new KeyedColumns(4, keys.table);
    const got = parseKeyed(text, { now: () => 7, keys, out, metadata: new MetadataCapture((u) => gotMeta.push(u)) });
    expect(gotMeta).toEqual(wantMeta);
    const rows = out.toRows();
    expect(rows.map((r) => show(r.labels, r.timestamp, r.value))).toEqual(want.rows.map((r) => show(r.labels, r.timestamp, r.value)));
    expect(rows.map((r) => r.rawKey)).toEqual(want.rows.map((r) => r.rawKey));
    expect([got.lines, got.errors.describe()]).toEqual([want.lines, want.errors.describe()]);
    keys.trim();
  }
}

describe('prometheus parseKeyed fuzz', () => {
  it('agrees with parse on arbitrary text', () => {
    fc.assert(fc.property(fc.array(anyText(alphabet), { maxLength: 4 }), (texts) => agree(texts, 1 << 20)), { numRuns: 300 });
  });
  it('agrees with parse on mutated valid input seen again and again', () => {
    const texts = fc.array(mutatedText(corpus, alphabet), { minLength: 1, maxLength: 4 }).map((t) => [...t, ...t, t.join('\n')]);
    fc.assert(fc.property(texts, fc.constantFrom(300, 1 << 20), (t, budget) => agree(t, budget)), { numRuns: 500 });
  });
});
