import { describe, it, expect } from 'vitest';
import { readFileSync } from 'node:fs';
import { KeyedColumns } from '../common/keyed-columns.ts';
import { SeriesKeyDictionary } from '../common/series-keys.ts';
import { showRows } from '../common/testing.ts';
import { parse } from './parse.ts';
import { parseKeyedBytes, scanKeyBytes } from './parse-keyed-bytes.ts';

const now = (): number => 1000;

// bytesRows parses texts one after another as UTF-8 bytes with one dictionary, as requests do.
function bytesRows(texts: string[], keys = new SeriesKeyDictionary(1 << 20)) {
  const rows: string[] = [];
  const errors: string[] = [];
  const lines: number[] = [];
  for (const text of texts) {
    const out = new KeyedColumns(4, keys.table);
    const r = parseKeyedBytes(Buffer.from(text), { now, keys, out });
    rows.push(...showRows(out.toRows()).map((s, i) => `${s} ${out.toRows()[i]!.rawKey}`));
    if (r.errors.count > 0) errors.push(r.errors.describe());
    lines.push(r.lines);
  }
  return { rows, errors, lines, keys };
}

function plainRows(texts: string[]) {
  const rows: string[] = [];
  const errors: string[] = [];
  const lines: number[] = [];
  for (const text of texts) {
    const r = parse(Buffer.from(text).toString('utf8'), { now });
    rows.push(...showRows(r.rows).map((s, i) => `${s} ${r.rows[i]!.rawKey}`));
    if (r.errors.count > 0) errors.push(r.errors.describe());
    lines.push(r.lines);
  }
  return { rows, errors, lines };
}

describe('prometheus parseKeyedBytes', () => {
  it('gives the rows, errors and line counts of parse on the decoded text', () => {
    const f = (texts: string[]) => {
      const got = bytesRows(texts);
      expect({ rows: got.rows, errors: got.errors, lines: got.lines }).toEqual(plainRows(texts));
    };
    // new keys, then known ones read from bytes, predicted or looked up
    f(['a 1\nb{x="1"} 2\nc 3', 'a 4\nb{x="1"} 5\nc 6', 'c 7 17\na 8 18\nb{x="1"} 9 19']);
    // plain decimals of every shape; the others go the slow way with the same result
    f(['v 1\nv -2.5\nv +3\nv .5\nv 5.\nv 1e3\nv 1.5E-3\nv -0\nv 007\nv 0.000000000000000000000000001', 'v NaN\nv +Inf\nv 12345678901234567890\nv 1e400\nv 1e\nv .\nv 0x10\nv 1_0']);
    // timestamps: signs, too many digits, something after them
    f(['t 1 -5\nt 1 +5\nt 1 1234567890123456\nt 1 99999999999999999999\nt 1 1.5\nt 1 2 3\nt 1 2 # c\nt 1 # c']);
    // keys that look alike: a longer name, labels after the name, a blank inside
    f(['foo 1\nfoo_total 2', 'foo 3\nfoo_total 4\nfoo {a="1"} 5\nfoo\t{a="1"} 6\nfoo 7\nfoo{a="1"}8']);
    // blanks, comments, CRLF, a byte order mark, lines without a value, a missing final newline
    f(['\ufeffm{a="}"} 1\r\n# HELP m x\n\n  \n\tm{a="}"}  2  3  \r\nm\nm{a="}"}\r', 'm{a="}"} 4\r\nm{a="}"}\r\n']);
    // escapes, quoted names, empty label values, unicode and broken UTF-8
    f(['x{b="2",a="1"} 1\ny{a="q\\"}"} 2\n{"my.metric","a.b"="c"} 3\nz{a="",b="1"} 4\nu{a="ünï"} 5', 'x{b="2",a="1"} 6\ny{a="q\\"}"} 7\n{"my.metric","a.b"="c"} 8\nz{a="",b="1"} 9\nu{a="ünï"} 10']);
    // bad lines never become keys
    f(['foo{a="1",a="2"} 3\nfoo{a="1",a="2"} 3\n{a="1"} 3\nbar{a="1" 2\nbar 1\nbar{a="\n"} 1']);
  });

  it('reads bytes that are not valid UTF-8 as the decoder does', () => {
    const keys = new SeriesKeyDictionary(1 << 20);
    const bad = Buffer.concat([Buffer.from('m{a="'), Buffer.from([0xff, 0xfe]), Buffer.from('"} 1\n')]);
    const f = (block: Buffer, want: string[]) => {
      const out = new KeyedColumns(4, keys.table);
      parseKeyedBytes(block, { now, keys, out });
      expect(showRows(out.toRows())).toEqual(want);
    };
    f(bad, ['m{a="\ufffd\ufffd"} 1 @1000']);
    f(bad, ['m{a="\ufffd\ufffd"} 1 @1000']);
    // another byte sequence decoding to the same text is the same series
    f(Buffer.from('m{a="\ufffd\ufffd"} 2\n'), ['m{a="\ufffd\ufffd"} 2 @1000']);
    expect(keys.size).toBe(1);
  });

  it('matches parse on the node_exporter golden file, twice over', () => {
    const text = readFileSync(new URL('./testdata/node_exporter.prom', import.meta.url), 'utf8');
    const got = bytesRows([text, text]);
    expect(got.rows).toEqual(plainRows([text, text]).rows);
    expect(got.errors).toEqual([]);
  });

  it('numbers error lines from firstLine', () => {
    const keys = new SeriesKeyDictionary(1 << 20);
    const r = parseKeyedBytes(Buffer.from('ok 1\nbad\n'), { now, keys, out: new KeyedColumns(4, keys.table), firstLine: 41 });
    expect([r.lines, r.errors.describe()]).toEqual([2, '1 line could not be parsed; first: line 42: missing value after "bad"']);
  });
});

describe('scanKeyBytes', () => {
  it('finds where a key ends, within the line', () => {
    const f = (text: string, want: number) => expect(scanKeyBytes(Buffer.from(text), 0)).toBe(want);
    f('foo 1', 3);
    f('foo{a="}"} 1', 10);
    f('foo {a="1"} 1', 11);
    f('foo{a="\\"}"} 1', 12);
    f('foo{a="1" 1\nx}', -1);
    f('foo{a="1\n"}', -1);
    f('foo\n{a}', 3);
  });
});
