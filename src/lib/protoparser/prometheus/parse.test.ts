import { describe, it, expect } from 'vitest';
import { readFileSync } from 'node:fs';
import { parse } from './parse.ts';
import { showRows, labelsAreCanonical } from '../common/testing.ts';

const now = (): number => 1000;

describe('prometheus parse', () => {
  it('parses good lines', () => {
    const f = (text: string, want: string[]): void => {
      const r = parse(text, { now });
      expect(r.errors.count, r.errors.describe()).toBe(0);
      expect(showRows(r.rows)).toEqual(want);
      for (const row of r.rows) expect(labelsAreCanonical(row)).toBe(true);
    };
    // bare names, optional timestamps in ms, blank lines and comments
    f('foo 1', ['foo{} 1 @1000']);
    f('foo 1 123', ['foo{} 1 @123']);
    f('foo 1 -5', ['foo{} 1 @-5']);
    f('# HELP foo help\n# TYPE foo counter\n\nfoo 2\n   \n', ['foo{} 2 @1000']);
    f('foo\t3\t4', ['foo{} 3 @4']);
    f('  foo   3   4  ', ['foo{} 3 @4']);
    f('foo 1\r\nbar 2\r\n', ['foo{} 1 @1000', 'bar{} 2 @1000']);
    f('\ufefffoo 1', ['foo{} 1 @1000']);
    f('ns:sub_metric 7', ['ns:sub_metric{} 7 @1000']);
    // labels, spacing, trailing comma, sorting
    f('foo{a="1",b="2"} 5', ['foo{a="1",b="2"} 5 @1000']);
    f('foo{ a = "1" , b="2", } 5', ['foo{a="1",b="2"} 5 @1000']);
    f('foo {a="1"} 5', ['foo{a="1"} 5 @1000']);
    f('foo{} 5', ['foo{} 5 @1000']);
    f('foo{b="2",a="1"} 5', ['foo{a="1",b="2"} 5 @1000']);
    f('foo{Zone="z",a="1"} 5', ['foo{Zone="z",a="1"} 5 @1000']);
    f('foo{a="1"}5', ['foo{a="1"} 5 @1000']);
    // empty label values are absent labels
    f('foo{a="",b="2"} 5', ['foo{b="2"} 5 @1000']);
    // escapes in label values; unknown escapes kept verbatim
    f('foo{a="x\\\\y",b="q\\"q",c="l1\\nl2",d="\\t"} 1', ['foo{a="x\\\\y",b="q\\"q",c="l1\\nl2",d="\\\\t"} 1 @1000']);
    f('foo{a="}{,=#"} 1', ['foo{a="}{,=#"} 1 @1000']);
    f('foo{a="ünï©ødé"} 1', ['foo{a="ünï©ødé"} 1 @1000']);
    // special values
    f('a NaN\nb +Inf\nc -Inf\nd Inf\ne nan\nf -inf\ng +infinity', [
      'a{} NaN @1000', 'b{} +Inf @1000', 'c{} -Inf @1000', 'd{} +Inf @1000', 'e{} NaN @1000', 'f{} -Inf @1000', 'g{} +Inf @1000',
    ]);
    f('a 1e3\nb -1.5E-3\nc .5\nd 5.\ne +7\nf -0\ng 0.1\nh 123456789012345678901234567890', [
      'a{} 1000 @1000', 'b{} -0.0015 @1000', 'c{} 0.5 @1000', 'd{} 5 @1000', 'e{} 7 @1000', 'f{} -0 @1000', 'g{} 0.1 @1000',
      'h{} 1.2345678901234568e+29 @1000',
    ]);
    // exemplars and trailing comments after the value or the timestamp are ignored
    f('foo_bucket{le="0.5"} 3 # {trace_id="abc"} 0.4 1600000000', ['foo_bucket{le="0.5"} 3 @1000']);
    f('foo 3 17 # {trace_id="abc"} 0.4', ['foo{} 3 @17']);
    // __name__ as a label and quoted UTF-8 names
    f('{__name__="foo",a="1"} 2', ['foo{a="1"} 2 @1000']);
    f('{"my.metric","label.x"="v"} 2', ['my.metric{label.x="v"} 2 @1000']);
    f('{"my.metric"} 2', ['my.metric{} 2 @1000']);
    f('foo{"a b"="v"} 2', ['foo{a b="v"} 2 @1000']);
  });

  it('parses the node_exporter golden file', () => {
    const text = readFileSync(new URL('./testdata/node_exporter.prom', import.meta.url), 'utf8');
    const want = readFileSync(new URL('./testdata/node_exporter.want', import.meta.url), 'utf8').trimEnd().split('\n');
    const r = parse(text, { now });
    expect(r.errors.count, r.errors.describe()).toBe(0);
    expect(showRows(r.rows)).toEqual(want);
  });

  it('sets rawKey to the text before the value', () => {
    const f = (text: string, want: string): void => {
      expect(parse(text, { now }).rows[0]?.rawKey).toBe(want);
    };
    f('foo 1', 'foo');
    f('  foo{a="1"} 1 2', 'foo{a="1"}');
    f('foo{b="2",a="1"}\t1', 'foo{b="2",a="1"}');
  });

  it('rejects bad lines and keeps the good ones', () => {
    const f = (text: string, wantRows: string[], wantCount: number, wantFirst: string): void => {
      const r = parse(text, { now });
      expect(showRows(r.rows)).toEqual(wantRows);
      expect(r.errors.count).toBe(wantCount);
      expect(r.errors.first?.message).toBe(wantFirst);
    };
    f('foo', [], 1, 'line 1: missing value after "foo"');
    f('foo{a="1"}', [], 1, 'line 1: missing value after "foo{a=\\"1\\"}"');
    f('good 1\nfoo abc\ngood 2', ['good{} 1 @1000', 'good{} 2 @1000'], 1, 'line 2: cannot parse number "abc"');
    f('foo 1 2 3', [], 1, 'line 1: unexpected text after timestamp: "3"');
    f('foo 1 1.5', [], 1, 'line 1: cannot parse timestamp "1.5"');
    f('foo 1 99999999999999999999', [], 1, 'line 1: timestamp "99999999999999999999" is out of range');
    f('foo 0x10', [], 1, 'line 1: cannot parse number "0x10"');
    f('foo 1e', [], 1, 'line 1: cannot parse number "1e": missing exponent digits');
    f('foo{a="1" 2', [], 1, 'line 1: missing "," or "}" after label "a"');
    f('foo{a="1 2', [], 1, 'line 1: missing closing quote in value of label "a"');
    f('foo{a=1} 2', [], 1, 'line 1: label "a" must have a quoted value');
    f('foo{a} 2', [], 1, 'line 1: missing "=" after label name "a"');
    f('foo{="x"} 2', [], 1, 'line 1: empty label name');
    f('foo{a="1",a="2"} 3', [], 1, 'line 1: duplicate label "a"');
    f('foo{__name__="bar"} 3', [], 1, 'line 1: metric name given twice');
    f('{a="1"} 3', [], 1, 'line 1: missing metric name in "{a=\\"1\\"}"');
    f('{""} 3', [], 1, 'line 1: empty metric name');
    f('a 1\nb\nc x\nd 4', ['a{} 1 @1000', 'd{} 4 @1000'], 2, 'line 2: missing value after "b"');
  });

  it('numbers lines from firstLine', () => {
    const r = parse('ok 1\nbad\n', { now, firstLine: 41 });
    expect(r.lines).toBe(2);
    expect(r.errors.first?.line).toBe(42);
  });

  it('calls the clock once per parse', () => {
    let calls = 0;
    const r = parse('a 1\nb 2\nc 3', { now: () => ++calls * 100 });
    expect(calls).toBe(1);
    expect(r.rows.map((x) => x.timestamp)).toEqual([100, 100, 100]);
  });

  it('does not confuse reused labels across lines', () => {
    // The label cache must never hand out a label whose text differs, whatever the order.
    const text = ['m{a="1",b="x"} 1', 'm{a="1",b="y"} 2', 'm{a="2",b="x"} 3', 'm{b="x",a="1"} 4', 'n{a="1",b="x"} 5', 'm{a="11",b="x"} 6', 'm{aa="1",b="x"} 7'].join('\n');
    expect(showRows(parse(text, { now }).rows)).toEqual([
      'm{a="1",b="x"} 1 @1000', 'm{a="1",b="y"} 2 @1000', 'm{a="2",b="x"} 3 @1000', 'm{a="1",b="x"} 4 @1000',
      'n{a="1",b="x"} 5 @1000', 'm{a="11",b="x"} 6 @1000', 'm{aa="1",b="x"} 7 @1000',
    ]);
  });
});
