import { describe, it, expect } from 'vitest';
import { readFileSync } from 'node:fs';
import { KeyedColumns } from '../common/keyed-columns.ts';
import { SeriesKeyDictionary } from '../common/series-keys.ts';
import { showRows } from '../common/testing.ts';
import { parse } from './parse.ts';
import { parseKeyed } from './parse-keyed.ts';

const now = (): number => 1000;

// keyedRows parses texts one after another with one dictionary, as a stream of requests does.
function keyedRows(texts: string[], keys = new SeriesKeyDictionary(1 << 20)): { rows: string[]; errors: string[]; keys: SeriesKeyDictionary } {
  const rows: string[] = [];
  const errors: string[] = [];
  for (const text of texts) {
    const out = new KeyedColumns(4, keys.table);
    const r = parseKeyed(text, { now, keys, out });
    rows.push(...showRows(out.toRows()));
    if (r.errors.count > 0) errors.push(r.errors.describe());
  }
  return { rows, errors, keys };
}

function plainRows(texts: string[]): { rows: string[]; errors: string[] } {
  const rows: string[] = [];
  const errors: string[] = [];
  for (const text of texts) {
    const r = parse(text, { now });
    rows.push(...showRows(r.rows));
    if (r.errors.count > 0) errors.push(r.errors.describe());
  }
  return { rows, errors };
}

describe('prometheus parseKeyed', () => {
  it('gives the rows and errors of parse, whether keys are new, known or predicted', () => {
    const f = (texts: string[]) => {
      const got = keyedRows(texts);
      expect({ rows: got.rows, errors: got.errors }).toEqual(plainRows(texts));
    };
    // the same series again: first new, then found, then predicted from the order
    f(['a 1\nb{x="1"} 2\nc 3', 'a 4\nb{x="1"} 5\nc 6', 'a 7 17\nb{x="1"} 8 18\nc 9 19']);
    // a key that is a prefix of a longer name, or is followed by labels, is not that key
    f(['foo 1\nfoo_total 2', 'foo 3\nfoo_total 4\nfoo {a="1"} 5\nfoo\t{a="1"} 6\nfoo 7']);
    // the order changes; a known key on a bad line is still a bad line
    f(['up{job="a"} 1\nup{job="b"} 2', 'up{job="b"} 3\nup{job="a"} x\nup{job="a"} 4 5 6\nup{job="a"} 7']);
    // blanks, comments, exemplars, CRLF and a byte order mark
    f(['\ufeff# HELP m x\nm{a="}"} 1 # {t="1"} 2\r\n\n  m{a="}"}  2  3  \n', '  m{a="}"} 4\r\n']);
    // labels out of order, escapes, quoted names, an empty label value
    f(['x{b="2",a="1"} 1\ny{a="q\\"}"} 2\n{"my.metric","a.b"="c"} 3\nz{a="",b="1"} 4', 'x{b="2",a="1"} 5\ny{a="q\\"}"} 6\n{"my.metric","a.b"="c"} 7\nz{a="",b="1"} 8']);
    // lines the full parser rejects never enter the dictionary
    f(['foo{a="1",a="2"} 3\nfoo{a="1",a="2"} 3', '{a="1"} 3\nbar{a="1" 2\nbar 1']);
    // a name without labels at the very end of a line
    f(['foo 1\nfoo', 'foo 2\nfoo']);
  });

  it('builds labels only for new keys', () => {
    const { keys } = keyedRows(['a 1\nb{x="1"} 2', 'a 3\nb{x="1"} 4\nc 5', 'c 6\na 7']);
    expect(keys.table.rawKeys).toEqual(['a', 'b{x="1"}', 'c']);
  });

  it('matches parse on the node_exporter golden file, twice over', () => {
    const text = readFileSync(new URL('./testdata/node_exporter.prom', import.meta.url), 'utf8');
    const got = keyedRows([text, text]);
    expect(got.rows).toEqual(plainRows([text, text]).rows);
    expect(got.errors).toEqual([]);
  });

  it('numbers error lines from firstLine', () => {
    const keys = new SeriesKeyDictionary(1 << 20);
    const r = parseKeyed('ok 1\nbad\n', { now, keys, out: new KeyedColumns(4, keys.table), firstLine: 41 });
    expect([r.lines, r.errors.describe()]).toEqual([2, '1 line could not be parsed; first: line 42: missing value after "bad"']);
  });

  it('refuses a batch of another key table', () => {
    const keys = new SeriesKeyDictionary(1 << 20);
    expect(() => parseKeyed('a 1', { now, keys, out: new KeyedColumns(4) })).toThrow(/another key table/);
  });
});
