import { describe, it, expect } from 'vitest';
import { KeyedColumns } from '../common/keyed-columns.ts';
import { SeriesKeyDictionary } from '../common/series-keys.ts';
import { showRows } from '../common/testing.ts';
import { parse } from './parse.ts';
import { parseJsonLinesKeyed } from './parse-keyed.ts';
import { writeSeries } from './write.ts';

const keyed = (keys: SeriesKeyDictionary, text: string, firstLine = 1) => {
  const out = new KeyedColumns(4, keys.table);
  const r = parseJsonLinesKeyed(Buffer.from(text), { keys, out, firstLine });
  return { rows: out.toRows(), errors: r.errors, lines: r.lines, keys: Array.from(out.keys.subarray(0, out.length)) };
};

describe('jsonline parseJsonLinesKeyed', () => {
  it('gives the rows of parse and numbers each series once', () => {
    const keys = new SeriesKeyDictionary(1 << 20);
    const f = (text: string, wantKeys: number[], wantSize: number) => {
      const got = keyed(keys, text);
      const want = parse(text);
      expect(showRows(got.rows)).toEqual(showRows(want.rows));
      expect([got.lines, got.errors.describe()]).toEqual([want.lines, want.errors.describe()]);
      expect(got.rows.every((r) => r.rawKey === undefined)).toBe(true);
      expect(got.keys).toEqual(wantKeys);
      expect(keys.size).toBe(wantSize);
    };
    // two new series, then one of them again
    f('{"metric":{"__name__":"up","job":"a"},"values":[1,0.5],"timestamps":[1,2]}\n{"metric":{"__name__":"up","job":"b"},"values":[2],"timestamps":[3]}', [0, 0, 1], 2);
    f('{"metric":{"__name__":"up","job":"a"},"values":[3],"timestamps":[4]}\n', [0], 2);
    // another spelling of a known series (key order, a number label value) shares its key
    f('{"timestamps":[5],"values":[4],"metric":{"job":"a","__name__":"up"}}', [0], 2);
    f('{"metric":{"__name__":"n","code":200},"values":[1],"timestamps":[1]}\n{"metric":{"__name__":"n","code":"200"},"values":[2],"timestamps":[2]}', [2, 2], 3);
    // special values, whitespace, CRLF, blank lines, -0, exponents, long mantissas
    f(' { "metric" : {"__name__":"s"} , "values" : [null, "NaN", "-Inf", "+inf", "1.5", -0, 1e3, 1.2345678901234567e-300, 0.1000000000000000055511151231257827] ,\r"timestamps":[1,2,3,4,5,6,7,8,1e3]}\r\n\n \t\r\n', [3, 3, 3, 3, 3, 3, 3, 3, 3], 4);
    // a bad sample late in a line drops the whole line
    f('{"metric":{"__name__":"late"},"values":[1,2,"x"],"timestamps":[1,2,3]}\n{"metric":{"__name__":"s"},"values":[7],"timestamps":[7]}', [3], 4);
  });

  it('rejects bad lines as parse does and keeps the good ones', () => {
    const good = '{"metric":{"__name__":"ok"},"values":[1],"timestamps":[1]}';
    const f = (line: string, want: string) => {
      const got = keyed(new SeriesKeyDictionary(1 << 20), `${good}\n${line}\n${good}`, 7);
      expect(showRows(got.rows)).toEqual(['ok{} 1 @1', 'ok{} 1 @1']);
      expect(got.errors.count).toBe(1);
      expect(got.errors.first?.message).toEqual(want);
      expect(got.errors.describe()).toBe(parse(`${good}\n${line}\n${good}`, { firstLine: 7 }).errors.describe());
    };
    f('{"metric":', expect.stringMatching(/^line 8: cannot parse JSON: /) as unknown as string);
    f('{"metric":{"a":"1"},"values":[01],"timestamps":[1]}', expect.stringMatching(/^line 8: cannot parse JSON: /) as unknown as string);
    f('[1]', 'line 8: line must be a JSON object; got array');
    f('{"values":[1],"timestamps":[1]}', 'line 8: missing "metric" object');
    f('{"metric":{},"values":[1],"timestamps":[1]}', 'line 8: "metric" has no labels');
    f('{"metric":{"a":{}},"values":[1],"timestamps":[1]}', 'line 8: label "a" must be a string; got object');
    f('{"metric":{"a":"1"},"values":[],"timestamps":[]}', 'line 8: missing "values" array');
    f('{"metric":{"a":"1"},"values":[1]}', 'line 8: missing "timestamps" array');
    f('{"metric":{"a":"1"},"values":[1,2],"timestamps":[1]}', 'line 8: "timestamps" has 1 entries but "values" has 2');
    f('{"metric":{"a":"1"},"values":[1],"timestamps":[1.5]}', 'line 8: timestamp at position 0 must be an integer (ms); got "1.5"');
    f('{"metric":{"a":"1"},"values":[1],"timestamps":[9007199254740992]}', 'line 8: timestamp at position 0 must be an integer (ms); got "9007199254740992"');
    f('{"metric":{"a":"1"},"values":[1,"x"],"timestamps":[1,2]}', 'line 8: cannot parse value at position 1: "\\"x\\""');
    f('{"metric":{"a":"1"},"values":[true],"timestamps":[1]}', 'line 8: cannot parse value at position 0: "true"');
  });

  it('skips a byte order mark at the start of the body only', () => {
    const line = '{"metric":{"__name__":"b"},"values":[1],"timestamps":[1]}';
    const f = (text: string, firstLine: number, wantRows: number, wantErrors: number, wantLines: number) => {
      const got = keyed(new SeriesKeyDictionary(1 << 20), text, firstLine);
      expect([got.rows.length, got.errors.count, got.lines]).toEqual([wantRows, wantErrors, wantLines]);
    };
    f(`\ufeff${line}\n${line}`, 1, 2, 0, 2);
    f('\ufeff', 1, 0, 0, 0);
    f(`\ufeff${line}`, 2, 0, 1, 1);
  });

  it('reads a line longer than its scratch columns, and short lines after it', () => {
    const n = 70_000;
    const text = `${writeSeries([{ name: '__name__', value: 'big' }], Array.from({ length: n }, (_, i) => i), Array.from({ length: n }, (_, i) => i / 4))}{"metric":{"__name__":"s"},"values":[1,2],"timestamps":[1,2]}`;
    const keys = new SeriesKeyDictionary(1 << 20);
    for (let rep = 0; rep < 2; rep++) {
      const got = keyed(keys, text);
      expect(got.rows).toHaveLength(n + 2);
      expect(showRows([got.rows[0]!, got.rows[n - 1]!, got.rows[n + 1]!])).toEqual(['big{} 0 @0', 'big{} 17499.75 @69999', 's{} 2 @2']);
    }
  });

  it('refuses a batch of another key table', () => {
    const keys = new SeriesKeyDictionary(1 << 20);
    expect(() => parseJsonLinesKeyed(Buffer.from(''), { keys, out: new KeyedColumns(4) })).toThrow(/another key table/);
  });
});
