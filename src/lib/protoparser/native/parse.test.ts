import { describe, it, expect } from 'vitest';
import zlib from 'node:zlib';
import { header, encodeSeries } from './write.ts';
import { NativeDecoder, parse, seriesRows } from './parse.ts';
import { streamNative } from './stream.ts';
import { ParseError } from '../common/parse-error.ts';
import { isStaleNaN, STALE_NAN } from '../../storageapi/index.ts';
import { showRows } from '../common/testing.ts';
import type { Label } from '../common/row.ts';

const L = (obj: Record<string, string>): Label[] => Object.entries(obj).map(([name, value]) => ({ name, value }));
const hex = (s: string): Buffer => Buffer.from(s.replace(/\s+/g, ''), 'hex');
const frame = (payload: Buffer): Buffer => {
  const h = Buffer.alloc(8);
  h.writeUInt32LE(payload.length, 0);
  h.writeUInt32LE(zlib.crc32(payload), 4);
  return Buffer.concat([h, payload]);
};

describe('native format', () => {
  it('writes the documented bytes', () => {
    expect(header()).toEqual(hex('53544e42 01 000000'));
    const payload = hex(`01  01 08 5f5f6e616d655f5f 02 7570  03  01 d00f d00f 00  03 02 00 00`);
    expect(encodeSeries(L({ __name__: 'up' }), [1000, 2000, 3000], [1, 1, 1])).toEqual(frame(payload));
    // XOR values: the first raw (big-endian), then 0x80 for "same bits", then lead/trail + bytes
    const xor = encodeSeries(L({ a: 'b' }), [0, 0, 0], Float64Array.of(1.5, 1.5, 2.5));
    expect(xor.subarray(8)).toEqual(hex('01 01 01 61 01 62 03 01 00 00 00 02 3ff8000000000000 80 06 7ffc'));
  });

  it('round-trips series, including special values and long series', () => {
    const f = (labels: Record<string, string>, ts: number[], vs: Float64Array): void => {
      const body = Buffer.concat([header(), encodeSeries(L(labels), ts, vs, 3)]);
      const series = parse(body);
      expect(series.flatMap((s) => [...s.timestamps])).toEqual(ts);
      const got = series.flatMap((s) => [...s.values]);
      got.forEach((v, i) => expect(Object.is(v, vs[i]) || (Number.isNaN(v) && Number.isNaN(vs[i]!))).toBe(true));
      for (const s of series) expect(s.labels).toEqual(L(labels));
    };
    f({ __name__: 'm', job: 'x' }, [1, 2, 3, 4, 5, 6, 7], Float64Array.of(1, 2, 3, 5, 8, 13, 21));
    f({ __name__: 'm' }, [5, 3, 9, -(2 ** 53) + 1, 2 ** 53 - 1], Float64Array.of(0.1, -0, NaN, Infinity, -Infinity));
    f({ __name__: 'm' }, [1, 2], Float64Array.of(2 ** 53 - 1, -(2 ** 53) + 1));
    f({ __name__: 'ünï', 'ключ': 'значение\n"' }, [0], Float64Array.of(5e-324));
  });

  it('keeps staleness markers bit-exact', () => {
    const series = parse(Buffer.concat([header(), encodeSeries(L({ __name__: 'm' }), [1, 2, 3], Float64Array.of(1, STALE_NAN, NaN))]));
    expect(isStaleNaN(series[0]!.values[1]!)).toBe(true);
    expect(isStaleNaN(series[0]!.values[2]!)).toBe(false);
  });

  it('decodes the same whatever the chunking', () => {
    const body = Buffer.concat([header(), encodeSeries(L({ __name__: 'a' }), [1, 2], [1, 2]), encodeSeries(L({ __name__: 'b' }), [3], [0.5])]);
    for (const size of [1, 2, 7, 8, 9, 1000]) {
      const d = new NativeDecoder();
      const names: string[] = [];
      for (let i = 0; i < body.length; i += size) for (const s of d.push(body.subarray(i, i + size))) names.push(s.labels[0]!.value);
      d.end();
      expect(names).toEqual(['a', 'b']);
    }
  });

  it('accepts an empty export and raw encodings written by other tools', () => {
    expect(parse(header())).toEqual([]);
    const raw = Buffer.alloc(8 * 4);
    raw.writeBigInt64LE(-5n, 0);
    raw.writeBigInt64LE(7n, 8);
    raw.writeDoubleLE(1.25, 16);
    raw.writeDoubleLE(-2, 24);
    const payload = Buffer.concat([hex('01 01 01 61 01 62 02 02'), raw.subarray(0, 16), hex('01'), raw.subarray(16)]);
    const rows = parse(Buffer.concat([header(), frame(payload)])).flatMap(seriesRows);
    expect(showRows(rows)).toEqual(['{a="b"} 1.25 @-5', '{a="b"} -2 @7']);
  });

  it('reports corruption with the byte offset', () => {
    const good = Buffer.concat([header(), encodeSeries(L({ __name__: 'up' }), [1000, 2000, 3000], [1, 1, 1])]);
    const f = (body: Buffer, want: string): void => {
      let err: unknown;
      try {
        parse(body);
      } catch (e) {
        err = e;
      }
      expect(err).toBeInstanceOf(ParseError);
      expect((err as Error).message).toBe(want);
    };
    const withPayload = (p: string): Buffer => Buffer.concat([header(), frame(hex(p))]);
    f(Buffer.from('hello world'), 'at byte 0: not a native stream: bad magic (want "STNB")');
    f(hex('53544e42 02 000000'), 'at byte 4: unsupported native format version 2 (want 1)');
    f(hex('53544e42 01 000100'), 'at byte 5: reserved header bytes must be zero');
    f(hex('53544e42 01'), 'at byte 0: truncated header: the stream ends after 5 more bytes');
    f(good.subarray(0, good.length - 1), 'at byte 8: truncated block: the stream ends after 32 more bytes');
    f(Buffer.concat([header(), hex('00000000 00000000')]), 'at byte 8: block length 0 is outside 1..16777216');
    f(Buffer.concat([header(), hex('ffffffff 00000000')]), 'at byte 8: block length 4294967295 is outside 1..16777216');
    const flipped = Buffer.from(good);
    flipped[20] = flipped[20]! ^ 1;
    f(flipped, 'at byte 8: block checksum mismatch');
    f(withPayload('02'), 'at byte 16: unknown block kind 2');
    f(withPayload('01 00'), 'at byte 17: label count 0 does not fit the block');
    f(withPayload('01 05 01'), 'at byte 17: label count 5 does not fit the block');
    f(withPayload('01 01 09 61 00'), 'at byte 19: label name of 9 bytes runs past the end of the block');
    f(withPayload('01 02 01 61 01 62 01 61 01 63 01 01 00 03 00'), 'at byte 17: duplicate label "a"');
    f(withPayload('01 01 01 61 00 01 01 00 03 00'), 'at byte 17: series has only empty labels');
    f(withPayload('01 01 01 61 01 62 00'), 'at byte 22: sample count 0 is outside 1..65536');
    f(withPayload('01 01 01 61 01 62 09 01'), 'at byte 22: sample count 9 does not fit the 1 bytes left');
    f(withPayload('01 01 01 61 01 62 01 07 00 03 00'), 'at byte 23: unknown timestamp encoding 7');
    f(withPayload('01 01 01 61 01 62 01 01 00 09 00'), 'at byte 25: unknown value encoding 9');
    f(withPayload('01 01 01 61 01 62 01 01 00 03 00 ff'), 'at byte 27: 1 unexpected bytes at the end of the block');
    f(withPayload('01 01 01 61 01 62 02 01 00 00 02 3ff8000000000000 77'), 'at byte 35: bad value control byte 0x77');
    f(withPayload('01 01 01 61 01 62 01 01 feffffffffffffff7f 03 00'), 'at byte 24: integer out of range');
  });

  it('refuses input after an error', () => {
    const d = new NativeDecoder();
    expect(() => d.push(Buffer.from('garbage!'))).toThrow(ParseError);
    expect(() => d.push(header())).toThrow('not a native stream');
  });
});

describe('streamNative', () => {
  it('imports rows in batches and reports corruption after the good part', async () => {
    const good = Buffer.concat([header(), encodeSeries(L({ __name__: 'a' }), [1, 2, 3], [1, 2, 3]), encodeSeries(L({ __name__: 'b' }), [4], [4])]);
    const batches: number[] = [];
    const sum = await streamNative([zlib.gzipSync(good)], { contentEncoding: 'gzip', batchSize: 2, onBatch: (rows) => void batches.push(rows.length) });
    expect(batches).toEqual([2, 2]);
    expect(sum).toEqual({ rows: 4, series: 2, error: undefined });

    const broken = Buffer.concat([good, Buffer.from('junk')]);
    const res = await streamNative([broken], { onBatch: () => {} });
    expect(res.rows).toBe(4);
    expect(res.error?.message).toBe(`at byte ${good.length}: truncated block: the stream ends after 4 more bytes`);
  });
});
