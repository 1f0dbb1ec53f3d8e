import { describe, it, expect } from 'vitest';
import { KeyedColumns } from '../common/keyed-columns.ts';
import { SeriesKeyDictionary } from '../common/series-keys.ts';
import { showRows } from '../common/testing.ts';
import { parse } from './parse.ts';
import { parseInfluxKeyedBytes } from './parse-keyed-bytes.ts';

const now = (): number => 1000;

describe('influx parseInfluxKeyedBytes', () => {
  it('gives the rows of parse and numbers each (series, field) once', () => {
    const keys = new SeriesKeyDictionary(1 << 20);
    const f = (text: string, wantKeys: number) => {
      const out = new KeyedColumns(4, keys.table);
      const r = parseInfluxKeyedBytes(Buffer.from(text), { now, precision: 's', db: 'd', keys, out });
      const want = parse(text, { now, precision: 's', db: 'd' });
      expect(showRows(out.toRows())).toEqual(showRows(want.rows));
      expect(r.errors.describe()).toBe(want.errors.describe());
      expect(keys.size).toBe(wantKeys);
    };
    // new keys, then the same lines again (no new keys), a line with an escape, a bad value
    f('cpu,host=a usage=1.5,idle=2i 1700000000\nmem free=3u 1700000000', 3);
    f('cpu,host=a usage=2.5,idle=3i 1700000001\nmem free=4u 1700000001', 3);
    f('cpu\\ x,host=a usage=1 5\ncpu,host=a usage=x 6\nmem free=5u', 4);
    f('cpu\\ x,host=a usage=2 7', 4);
  });

  it('names a single-field line after its measurement only when asked, with its own key', () => {
    const keys = new SeriesKeyDictionary(1 << 20);
    const out = new KeyedColumns(4, keys.table);
    parseInfluxKeyedBytes(Buffer.from('m v=1\nm v=2,w=3\n'), { now, skipSingleField: true, keys, out });
    expect(showRows(out.toRows())).toEqual(['m{} 1 @1000', 'm_v{} 2 @1000', 'm_w{} 3 @1000']);
  });
});
