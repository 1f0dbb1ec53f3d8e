import { describe, it, expect } from 'vitest';
import { parse, splitFields } from './parse.ts';
import { parseFormat } from './format.ts';
import { showRows } from '../common/testing.ts';
import { isLineFailure } from '../common/line-failure.ts';

const now = (): number => 1000;

describe('csv parse', () => {
  it('turns records into rows', () => {
    const f = (format: string, text: string, want: string[]): void => {
      const r = parse(text, { format: parseFormat(format), now });
      expect(r.errors.describe()).toBe('');
      expect(showRows(r.rows)).toEqual(want);
    };
    // the import endpoint's usage: metric and label columns
    f('2:metric:ask,3:metric:bid,1:label:ticker,4:label:market', 'GOOG,1.23,4.56,NYSE\nMSFT,3.21,1.67,NASDAQ\n', [
      'ask{market="NYSE",ticker="GOOG"} 1.23 @1000',
      'bid{market="NYSE",ticker="GOOG"} 4.56 @1000',
      'ask{market="NASDAQ",ticker="MSFT"} 3.21 @1000',
      'bid{market="NASDAQ",ticker="MSFT"} 1.67 @1000',
    ]);
    // time columns, ignored and extra columns, empty metric fields skipped, empty labels dropped
    f('1:time:unix_s,3:metric:v,4:label:l', '1700000000,ignored,5,x,extra\n1700000001,,,\n', ['v{l="x"} 5 @1700000000000']);
    f('1:time:rfc3339,2:metric:v', '2023-11-14T22:13:20.5Z,NaN\r\n', ['v{} NaN @1700000000500']);
    // quoting: commas, doubled quotes, newlines inside quotes
    f('1:label:a,2:metric:v', '"x,y",1\n"say ""hi""",2\n"multi\nline",3\n""," 4"', [
      'v{a="x,y"} 1 @1000', 'v{a="say \\"hi\\""} 2 @1000', 'v{a="multi\\nline"} 3 @1000', 'v{} 4 @1000',
    ]);
    // metric name from a label:__name__ column (re-import of CSV export output)
    f('1:label:__name__,2:metric:value,3:time:unix_ms,4:label:job', 'up,1,1700000000000,node\nrequests_total,+Inf,5,', [
      'up{job="node"} 1 @1700000000000', 'requests_total{} +Inf @5',
    ]);
  });

  it('rejects bad records and keeps the good ones', () => {
    const format = parseFormat('1:label:a,2:metric:v,3:time:unix_s');
    const f = (rec: string, want: string): void => {
      const r = parse(`ok,1,1\n${rec}\nok,2,2\n`, { format, now });
      expect(showRows(r.rows)).toEqual(['v{a="ok"} 1 @1000', 'v{a="ok"} 2 @2000']);
      expect(r.errors.first?.message).toBe(want);
    };
    f('x,1', 'line 2: expected at least 3 columns; got 2');
    f('x,abc,1', 'line 2: cannot parse value of metric "v" in column 2: "abc"');
    f('x,1,', 'line 2: empty timestamp in column 3');
    f('x,1,later', 'line 2: cannot parse number "later"');
    f('"x"y,1,1', 'line 2: unexpected text after the closing quote of field 1: "y,1,1"');
    // an unbalanced quote runs to the end of the input, as in any CSV reader
    const open = parse('ok,1,1\n"x,1,1\nok,2,2\n', { format, now });
    expect(showRows(open.rows)).toEqual(['v{a="ok"} 1 @1000']);
    expect(open.errors.first?.message).toBe('line 2: missing closing quote in field 1');
    const named = parseFormat('1:label:__name__,2:metric:value');
    expect(parse(',1', { format: named, now }).errors.first?.message).toBe('line 1: empty metric name in the __name__ column');
  });

  it('numbers lines across quoted newlines', () => {
    const r = parse('"a\nb",1\nbad\n', { format: parseFormat('1:label:a,2:metric:v'), now, firstLine: 10 });
    expect(r.errors.first?.line).toBe(12);
    expect(r.lines).toBe(3);
  });

  it('splits fields', () => {
    const f = (s: string, want: string[] | string): void => {
      try {
        expect(splitFields(s, 0, s.length)).toEqual(want);
      } catch (e) {
        if (!isLineFailure(e)) throw e;
        expect(e.reason).toBe(want);
      }
    };
    f('', ['']);
    f('a', ['a']);
    f('a,', ['a', '']);
    f(',', ['', '']);
    f('a,b,c', ['a', 'b', 'c']);
    f('"",""', ['', '']);
    f('"a""b",c', ['a"b', 'c']);
    f('a"b,c', ['a"b', 'c']);
    f('"a', 'missing closing quote in field 1');
  });
});
