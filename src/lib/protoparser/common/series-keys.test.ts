import { describe, it, expect } from 'vitest';
import fc from 'fast-check';
import { KeyedColumns } from './keyed-columns.ts';
import { ownString, SeriesKeyDictionary } from './series-keys.ts';

const L = (...kv: string[]) => Array.from({ length: kv.length / 2 }, (_, i) => ({ name: kv[2 * i]!, value: kv[2 * i + 1]! }));

describe('SeriesKeyDictionary', () => {
  it('numbers keys densely and finds them again', () => {
    const d = new SeriesKeyDictionary(1 << 20);
    const f = (key: string, want: number) => {
      const k = d.get(key);
      expect(k >= 0 ? k : d.add(key, L('__name__', key))).toBe(want);
    };
    // new keys get 0, 1, 2…; a key seen before keeps its number
    f('a', 0);
    f('b{x="1"}', 1);
    f('a', 0);
    f('c', 2);
    f('b{x="1"}', 1);
    expect(d.size).toBe(3);
    expect(d.table.labels[1]).toEqual(L('__name__', 'b{x="1"}'));
    expect(d.table.rawKeys).toEqual(['a', 'b{x="1"}', 'c']);
  });

  it('copies keys and labels so the caller may change its own', () => {
    const d = new SeriesKeyDictionary(1 << 20);
    const labels = L('__name__', 'up', 'job', 'x');
    d.add('up{job="x"}', labels);
    labels[1]!.value = 'changed';
    expect(d.table.labels[0]).toEqual(L('__name__', 'up', 'job', 'x'));
  });

  it('copies the bytes given to addBytes, even a Buffer view into a larger chunk', () => {
    const d = new SeriesKeyDictionary(1 << 20);
    const chunk = Buffer.from('xxup{job="x"} 1\n');
    const k = d.add('up{job="x"}', L('__name__', 'up', 'job', 'x'));
    d.addBytes('up{job="x"}', chunk.subarray(2, 13), k);
    chunk.fill(0);
    const kept = d.keyBytes(k)!;
    expect(Buffer.from(kept).toString()).toBe('up{job="x"}');
    expect(kept.length).toBe(11);
    expect(kept.buffer).not.toBe(chunk.buffer);
  });

  it('keeps the bytes of every key intact across slabs, a key longer than a slab included', () => {
    const d = new SeriesKeyDictionary(Number.MAX_SAFE_INTEGER);
    const texts = Array.from({ length: 2000 }, (_, i) => (i === 700 ? `long{v="${'y'.repeat(70_000)}"}` : `m_${i}{job="${'x'.repeat(i % 97)}"}`));
    for (const t of texts) d.addBytes(t, Buffer.from(t, 'latin1'), d.add(t, L('__name__', t.slice(0, t.indexOf('{')))));
    texts.forEach((t, k) => {
      const b = Buffer.from(t, 'latin1');
      expect(Buffer.from(d.keyBytes(k)!).toString('latin1')).toBe(t);
      expect(d.bytesAt(k, b, new DataView(b.buffer, b.byteOffset, b.byteLength), 0)).toBe(true);
      expect(d.getBytes(t)).toBe(k);
    });
  });

  it('starts a new table in trim() only when over budget', () => {
    const d = new SeriesKeyDictionary(2000);
    const first = d.table;
    const f = (adds: number, wantTrimmed: boolean) => {
      for (let i = 0; i < adds; i++) d.add(`metric_${d.size}_${'x'.repeat(20)}`, L('__name__', `metric_${d.size}`));
      expect(d.trim()).toBe(wantTrimmed);
    };
    // a few keys fit; many do not, and the next table starts empty with numbers from 0
    f(2, false);
    expect(d.table).toBe(first);
    f(20, true);
    expect(d.table).not.toBe(first);
    expect(d.size).toBe(0);
    expect(d.get('metric_0_' + 'x'.repeat(20))).toBe(-1);
    expect(d.add('again', L('__name__', 'again'))).toBe(0);
    expect(d.resets).toBe(1);
    // the old table keeps what it had: batches numbered in it stay readable
    expect(first.labels.length).toBe(22);
  });

  it('predicts the key that followed last time', () => {
    const d = new SeriesKeyDictionary(1 << 20);
    for (const k of ['a', 'b', 'c']) d.add(k, L('__name__', k));
    const f = (prev: number, want: number) => expect(d.predict(prev)).toBe(want);
    // nothing recorded yet; no previous key
    f(0, -1);
    f(-1, -1);
    d.follow(0, 1);
    d.follow(1, 2);
    d.follow(-1, 2); // ignored: there was no previous key
    f(0, 1);
    f(1, 2);
    d.follow(0, 2);
    f(0, 2);
    // prediction grows with the table
    for (let i = 0; i < 3000; i++) d.add(`k${i}`, L('__name__', `k${i}`));
    d.follow(2500, 7);
    f(2500, 7);
    // a reset forgets the order
    const small = new SeriesKeyDictionary(10);
    small.add('a', L('__name__', 'a'));
    small.add('b', L('__name__', 'b'));
    small.follow(0, 1);
    expect(small.trim()).toBe(true);
    small.add('a', L('__name__', 'a'));
    expect(small.predict(0)).toBe(-1);
  });

  it('bytesAt says whether a key\'s recorded bytes (or a prefix) are at an offset, like a byte-by-byte comparison', () => {
    const bytes = fc.uint8Array({ maxLength: 40 }).map((a) => a.map((x) => x % 3)); // few symbols: many matches
    fc.assert(fc.property(bytes, fc.uint8Array({ minLength: 1, maxLength: 13 }).map((a) => a.map((x) => x % 3)), fc.integer({ min: -2, max: 45 }), fc.nat(7), (body, key, at, pad) => {
      const d = new SeriesKeyDictionary(1 << 20);
      const k = d.add('k', L('__name__', 'k'));
      d.addBytes('k', key, k);
      // b starts at an odd offset of a larger buffer: reads are unaligned.
      const whole = new Uint8Array(body.length + pad + 1);
      whole.set(body, pad);
      const b = whole.subarray(pad, pad + body.length);
      const naive = at >= 0 && at + key.length <= b.length && key.every((x, j) => b[at + j] === x);
      expect(d.bytesAt(k, b, new DataView(b.buffer, b.byteOffset, b.byteLength), at)).toBe(naive);
      expect(d.bytesAt(k + 1, b, new DataView(b.buffer, b.byteOffset, b.byteLength), at)).toBe(false);
      // A prefix of the key: its first `len` bytes (more than it has: never).
      for (const len of [0, 1, 5, key.length - 1, key.length + 1]) {
        const want = len >= 0 && len <= key.length && at >= 0 && at + len <= b.length && key.subarray(0, Math.max(0, len)).every((x, j) => b[at + j] === x);
        expect(d.bytesAt(k, b, new DataView(b.buffer, b.byteOffset, b.byteLength), at, len)).toBe(want);
      }
    }));
  });

  it('rejects a budget that is not positive', () => {
    expect(() => new SeriesKeyDictionary(0)).toThrow(/budget must be positive/);
  });
});

describe('ownString', () => {
  it('returns an equal string', () => {
    const f = (s: string) => expect(ownString(s)).toBe(s);
    f('');
    f('short');
    f('a fairly long latin-1 string, ÿ included');
    f('a long string with ünïcødé and emoji 🎉 beyond latin-1');
    f('lone surrogate \ud800 in a long enough string');
    f('x'.repeat(100_000).slice(10, 5000));
  });
});

describe('KeyedColumns', () => {
  it('grows, materialises rows and remembers the last key', () => {
    const d = new SeriesKeyDictionary(1 << 20);
    d.add('a', L('__name__', 'a'));
    d.add('b{x="1"}', L('__name__', 'b', 'x', '1'));
    const c = new KeyedColumns(1, d.table);
    for (let i = 0; i < 40; i++) c.push(i % 2, 1000 + i, i / 2);
    expect(c.length).toBe(40);
    expect(c.lastKey).toBe(1);
    const rows = c.toRows();
    expect(rows[3]).toEqual({ labels: L('__name__', 'b', 'x', '1'), timestamp: 1003, value: 1.5, rawKey: 'b{x="1"}' });
    expect(rows[39]!.timestamp).toBe(1039);
    // clear keeps the last key for the same table, forgets it for another
    c.clear(d.table);
    expect([c.length, c.lastKey]).toEqual([0, 1]);
    c.clear(new SeriesKeyDictionary(1).table);
    expect(c.lastKey).toBe(-1);
  });
});
