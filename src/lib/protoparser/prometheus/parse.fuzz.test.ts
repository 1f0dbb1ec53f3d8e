import { describe, it, expect } from 'vitest';
import fc from 'fast-check';
import { parse } from './parse.ts';
import { anyText, labelsAreCanonical, mutatedText } from '../common/testing.ts';
import type { ParseResult } from '../common/parse-result.ts';

const corpus = [
  'foo{a="1",b="x\\"y\\\\z\\n"} 1.5 123\nbar 2',
  '# HELP x y\n# TYPE x counter\nx_total{le="+Inf"} NaN # {t="1"} 2 3\n',
  '{"my.metric","a.b"="c"} -Inf 5\r\nfoo {a="1",} 1e-3',
  'node_cpu_seconds_total{cpu="0",mode="idle"} 98765.43\nnode_cpu_seconds_total{cpu="0",mode="user"} 1.5\n',
];
const alphabet = '{}",=\\ #\n\t\r.eE+-0123456789abn_:IiNnf\ufeff';

function check(text: string): void {
  const r: ParseResult = parse(text, { now: () => 7 });
  expect(r.errors.count === 0 || r.errors.first?.line !== undefined).toBe(true);
  for (const row of r.rows) {
    expect(labelsAreCanonical(row)).toBe(true);
    expect(row.labels.some((l) => l.name === '__name__')).toBe(true);
    expect(Number.isSafeInteger(row.timestamp)).toBe(true);
    expect(typeof row.value).toBe('number');
    expect(row.rawKey?.includes('\n')).toBe(false);
  }
}

describe('prometheus parse fuzz', () => {
  it('never throws on arbitrary text', () => {
    fc.assert(fc.property(anyText(alphabet), check), { numRuns: 1500 });
  });
  it('never throws on mutated valid input', () => {
    fc.assert(fc.property(mutatedText(corpus, alphabet), check), { numRuns: 5000 });
  });
  it('gives the same rows whatever the line grouping', () => {
    // The label cache must not make a line's result depend on its neighbours.
    fc.assert(
      fc.property(fc.array(mutatedText(corpus, alphabet), { maxLength: 5 }), (texts) => {
        const lines = texts.join('\n').split('\n');
        const whole = parse(lines.join('\n'), { now: () => 7 }).rows.map((r) => JSON.stringify(r.labels) + r.value);
        const single = lines.flatMap((l, i) => parse(l, { now: () => 7, firstLine: i + 1 }).rows.map((r) => JSON.stringify(r.labels) + r.value));
        expect(whole).toEqual(single);
      }),
      { numRuns: 1000 },
    );
  });
});
