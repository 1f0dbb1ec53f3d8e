import { describe, it, expect } from 'vitest';
import { parse } from './parse.ts';
import { showRows } from '../common/testing.ts';

const now = (): number => 1000;

describe('graphite parse', () => {
  it('parses plaintext lines with tags', () => {
    const f = (text: string, want: string[]): void => {
      const r = parse(text, { now });
      expect(r.errors.describe()).toBe('');
      expect(showRows(r.rows)).toEqual(want);
    };
    // the receiver's documented shape
    f('foo.bar;env=prod;dc=eu 12.5 1700000000', ['foo.bar{dc="eu",env="prod"} 12.5 @1700000000000']);
    f('foo.bar 1 1700000000', ['foo.bar{} 1 @1700000000000']);
    f('foo.bar\t1\t1700000000\r\n', ['foo.bar{} 1 @1700000000000']);
    f('  foo   1   1700000000  ', ['foo{} 1 @1700000000000']);
    // missing, -1 and 0 timestamps mean now; fractions keep ms
    f('a 1\nb 2 -1\nc 3 0\nd 4 1700000000.123', ['a{} 1 @1000', 'b{} 2 @1000', 'c{} 3 @1000', 'd{} 4 @1700000000123']);
    // tag edge cases: no "=", empty value, repeated name
    f('m;novalue;empty=;t=1;t=2 5 1', ['m{t="2"} 5 @1000']);
    f('m;a=b=c 5', ['m{a="b=c"} 5 @1000']);
    f('m NaN\nn -Inf', ['m{} NaN @1000', 'n{} -Inf @1000']);
  });

  it('rejects bad lines and keeps the good ones', () => {
    const f = (text: string, want: string): void => {
      const r = parse(`ok 1\n${text}\nok 2`, { now });
      expect(showRows(r.rows)).toEqual(['ok{} 1 @1000', 'ok{} 2 @1000']);
      expect(r.errors.first?.message).toBe(want);
    };
    f('foo', 'line 2: missing value after "foo"');
    f('foo abc 1', 'line 2: cannot parse number "abc"');
    f('foo 1 abc', 'line 2: cannot parse number "abc"');
    f('foo 1 Inf', 'line 2: cannot parse timestamp "Inf"');
    f('foo 1 2 3', 'line 2: unexpected text after timestamp: "3"');
    f(';a=b 1', 'line 2: metric name cannot be empty');
    f('foo 1 1e300', 'line 2: timestamp "1e300" is out of range');
  });
});
