import { describe, it, expect } from 'vitest';
import zlib from 'node:zlib';
import { compressSync } from 'snappy';
import { parse, seriesRowsOf, newStats } from './parse.ts';
import { encodeWriteRequest, encodeWriteRequestSnappy } from './encode.ts';
import { readRemoteWriteBody } from './stream.ts';
import { ProtoWriter, WIRE_FIXED64, WIRE_LEN, WIRE_VARINT } from './proto.ts';
import { ErrorSummary, ParseError, BodyTooLargeError, UnsupportedEncodingError } from '../common/parse-error.ts';
import { showRows } from '../common/testing.ts';
import { isStaleNaN, STALE_NAN } from '../../storageapi/index.ts';
import type { Label } from '../common/row.ts';

const L = (obj: Record<string, string>): Label[] => Object.entries(obj).map(([name, value]) => ({ name, value }));
const hex = (s: string): Buffer => Buffer.from(s.replace(/\s+/g, ''), 'hex');

// msg builds a protobuf message from [field, wireType, payload] triples for hand-made inputs.
type Field = [number, number, number | Buffer];
function msg(...fields: Field[]): Buffer {
  const w = new ProtoWriter();
  for (const [f, wt, v] of fields) {
    w.tag(f, wt);
    if (wt === WIRE_LEN) w.bytes(v as Buffer);
    else if (wt === WIRE_FIXED64) w.double(v as number);
    else if (wt === WIRE_VARINT) w.int64(v as number);
    else if (wt === 5) w.raw(Buffer.alloc(4));
  }
  return Buffer.from(w.finish());
}
const label = (name: string, value: string): Buffer => msg([1, WIRE_LEN, Buffer.from(name)], [2, WIRE_LEN, Buffer.from(value)]);
const sample = (value: number, ts: number): Buffer => msg([1, WIRE_FIXED64, value], [2, WIRE_VARINT, ts]);

describe('remote write parse', () => {
  it('decodes the golden WriteRequest bytes', () => {
    // WriteRequest{timeseries: [{labels: [__name__="up"], samples: [{value: 1, timestamp: 1000}]}]}
    const golden = hex(`0a 1e
      0a 0e 0a 08 5f5f6e616d655f5f 12 02 7570
      12 0c 09 000000000000f03f 10 e807`);
    expect(encodeWriteRequest([{ labels: L({ __name__: 'up' }), timestamps: [1000], values: [1] }])).toEqual(golden);
    const r = parse(golden);
    expect(showRows(r.rows)).toEqual(['up{} 1 @1000']);
    expect(r.rows[0]!.rawKey).toBe(golden.subarray(2, 18).toString('latin1'));
    expect(r.rows[0]!.rawKey!.startsWith('\n')).toBe(true);
  });

  it('decodes series, samples and special values', () => {
    const f = (series: { labels: Record<string, string>; ts: number[]; vs: number[] }[], want: string[]): void => {
      const body = encodeWriteRequest(series.map((s) => ({ labels: L(s.labels), timestamps: s.ts, values: Float64Array.from(s.vs) })));
      const r = parse(body);
      expect(r.errors.count).toBe(0);
      expect(showRows(r.rows)).toEqual(want);
    };
    f([], []);
    f([{ labels: { __name__: 'a', job: 'x' }, ts: [1, 2], vs: [1.5, -2] }], ['a{job="x"} 1.5 @1', 'a{job="x"} -2 @2']);
    f([{ labels: { job: 'x', __name__: 'a' }, ts: [0], vs: [0] }], ['a{job="x"} 0 @0']);
    f([{ labels: { __name__: 'a' }, ts: [-1000, 2 ** 53 - 1], vs: [NaN, -Infinity] }], ['a{} NaN @-1000', 'a{} -Inf @9007199254740991']);
    f([{ labels: { __name__: 'ü', 'ключ': 'значение' }, ts: [5], vs: [1e-300] }], ['ü{ключ="значение"} 1e-300 @5']);
    f([{ labels: { __name__: 'a', empty: '' }, ts: [5], vs: [1] }], ['a{} 1 @5']);
    f([{ labels: { __name__: 'a' }, ts: [], vs: [] }, { labels: { __name__: 'b' }, ts: [3], vs: [3] }], ['b{} 3 @3']);
  });

  it('keeps staleness markers bit-exact', () => {
    const body = encodeWriteRequest([{ labels: L({ __name__: 'a' }), timestamps: [1, 2], values: Float64Array.of(STALE_NAN, NaN) }]);
    const rows = parse(body).rows;
    expect(isStaleNaN(rows[0]!.value)).toBe(true);
    expect(isStaleNaN(rows[1]!.value)).toBe(false);
  });

  it('skips unknown fields, metadata, exemplars and histograms, and reads fields in any order', () => {
    const ts = msg(
      [2, WIRE_LEN, sample(7, 70)], // sample before labels
      [9, WIRE_VARINT, 123], // unknown fields of every wire type
      [10, WIRE_FIXED64, 1.5],
      [11, 5, 0],
      [12, WIRE_LEN, Buffer.from('junk')],
      [1, WIRE_LEN, msg([2, WIRE_LEN, Buffer.from('v')], [1, WIRE_LEN, Buffer.from('k')], [3, WIRE_VARINT, 1])],
      [3, WIRE_LEN, Buffer.from('exemplar')],
      [4, WIRE_LEN, Buffer.from('histogram')],
      [4, WIRE_LEN, Buffer.from('histogram')],
      [1, WIRE_LEN, label('__name__', 'm')],
      [2, WIRE_LEN, msg([2, WIRE_VARINT, 80], [1, WIRE_FIXED64, 8], [5, WIRE_VARINT, 1])],
    );
    const body = msg([3, WIRE_LEN, Buffer.from('metadata')], [1, WIRE_LEN, ts], [2, WIRE_LEN, Buffer.from('reserved')], [3, WIRE_LEN, Buffer.alloc(0)]);
    const r = parse(body);
    expect(showRows(r.rows)).toEqual(['m{k="v"} 7 @70', 'm{k="v"} 8 @80']);
    expect(r.stats).toEqual({ timeseries: 1, samples: 2, ignoredHistograms: 2, ignoredExemplars: 1, ignoredMetadata: 2 });
    // labels interleaved with other fields: no rawKey (it must be the sender's exact label bytes)
    expect(r.rows[0]!.rawKey).toBeUndefined();
  });

  it('defaults missing sample fields to zero', () => {
    const body = msg([1, WIRE_LEN, msg([1, WIRE_LEN, label('__name__', 'z')], [2, WIRE_LEN, Buffer.alloc(0)])]);
    expect(showRows(parse(body).rows)).toEqual(['z{} 0 @0']);
  });

  it('skips series with unusable labels and reports them', () => {
    const bad = msg([1, WIRE_LEN, label('a', '1')], [1, WIRE_LEN, label('a', '2')], [2, WIRE_LEN, sample(1, 1)]);
    const empty = msg([1, WIRE_LEN, label('a', '')], [2, WIRE_LEN, sample(1, 1)]);
    const noName = msg([1, WIRE_LEN, label('', 'x')], [2, WIRE_LEN, sample(1, 1)]);
    const good = msg([1, WIRE_LEN, label('__name__', 'ok')], [2, WIRE_LEN, sample(2, 2)]);
    const r = parse(msg([1, WIRE_LEN, bad], [1, WIRE_LEN, good], [1, WIRE_LEN, empty], [1, WIRE_LEN, noName]));
    expect(showRows(r.rows)).toEqual(['ok{} 2 @2']);
    expect(r.errors.count).toBe(3);
    expect(r.errors.first?.message).toBe('timeseries[0]: duplicate label "a"; 1 samples dropped');
    expect(r.stats.timeseries).toBe(4);
  });

  it('rejects malformed messages with a ParseError naming the byte offset', () => {
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
    const good = encodeWriteRequest([{ labels: L({ __name__: 'up' }), timestamps: [1000], values: [1] }]);
    f(good.subarray(0, good.length - 1), 'at byte 2: field length 30 exceeds the 29 bytes left');
    f(hex('0a'), 'at byte 1: truncated varint');
    f(hex('0a ffffffff0f'), 'at byte 6: field length 4294967295 exceeds the 0 bytes left');
    f(hex('0a 80808080808080'), 'at byte 6: varint does not fit 32 bits');
    f(hex('0b'), 'at byte 1: unsupported protobuf wire type 3');
    f(hex('09 0102'), 'at byte 1: truncated fixed64');
    f(hex('0d 01'), 'at byte 1: truncated fixed32');
    f(hex('08 ff'), 'at byte 2: truncated varint');
    // a sample timestamp beyond 2^53 cannot be a JS number
    f(msg([1, WIRE_LEN, msg([1, WIRE_LEN, label('__name__', 'x')], [2, WIRE_LEN, hex('10 ffffffffffffffff7f')])]), 'at byte 20: int64 9223372036854775807 is out of the supported range');
  });

  it('yields rows one series at a time', () => {
    const body = encodeWriteRequest([1, 2, 3].map((i) => ({ labels: L({ __name__: `m${i}` }), timestamps: [i, i + 1], values: [i, i] })));
    const stats = newStats();
    const sizes = [...seriesRowsOf(body, stats, new ErrorSummary())].map((rows) => rows.length);
    expect(sizes).toEqual([2, 2, 2]);
    expect(stats.samples).toBe(6);
  });
});

describe('readRemoteWriteBody', () => {
  const proto = encodeWriteRequest([{ labels: L({ __name__: 'up' }), timestamps: [1], values: [1] }]);
  const limits = { maxBodyBytes: 1 << 20, maxDecodedBytes: 1 << 20 };

  it('decodes every accepted encoding', async () => {
    const f = async (enc: string | undefined, body: Buffer): Promise<void> => {
      expect(await readRemoteWriteBody([body], { ...limits, contentEncoding: enc })).toEqual(proto);
    };
    await f(undefined, compressSync(proto));
    await f('snappy', encodeWriteRequestSnappy([{ labels: L({ __name__: 'up' }), timestamps: [1], values: [1] }]));
    await f('zstd', zlib.zstdCompressSync(proto));
    await f('gzip', zlib.gzipSync(proto));
    await f('deflate', zlib.deflateSync(proto));
    await f('identity', proto);
  });

  it('enforces limits and reports bad encodings', async () => {
    const f = async (enc: string | undefined, body: Buffer, opts: Partial<typeof limits>, want: unknown): Promise<void> => {
      await expect(readRemoteWriteBody([body], { ...limits, ...opts, contentEncoding: enc })).rejects.toBeInstanceOf(want as typeof Error);
    };
    const big = Buffer.alloc(10000);
    await f(undefined, compressSync(big), { maxDecodedBytes: 100 }, BodyTooLargeError);
    await f(undefined, compressSync(big), { maxBodyBytes: 10 }, BodyTooLargeError);
    await f('zstd', zlib.zstdCompressSync(big), { maxDecodedBytes: 100 }, BodyTooLargeError);
    await f('gzip', zlib.gzipSync(big), { maxDecodedBytes: 100 }, BodyTooLargeError);
    await f('identity', big, { maxDecodedBytes: 100 }, BodyTooLargeError);
    await f('br', big, {}, UnsupportedEncodingError);
    await f('gzip', Buffer.from('nope'), {}, ParseError);
    await f(undefined, Buffer.from([5, 0xff, 0xff]), {}, ParseError);
  });
});

describe('remote write metadata', () => {
  it('hands every metadata entry to onMetadata, or counts it as ignored without one', () => {
    const body = encodeWriteRequest([{ labels: [{ name: '__name__', value: 'up' }], timestamps: [1], values: [1] }], [
      { metric: 'up', type: 'gauge', help: 'Up or down.', unit: '' },
      { metric: 'http_requests_total', type: 'counter', help: 'Requests.', unit: 'requests' },
      { metric: 'x', type: 'stateset' },
      { metric: '' }, // no family name: says nothing
    ]);
    const got: unknown[] = [];
    const withSink = parse(body, (u) => got.push(u));
    expect(withSink.rows).toHaveLength(1);
    expect(withSink.stats.ignoredMetadata).toBe(0);
    expect(got).toEqual([
      { metric: 'up', type: 'gauge', help: 'Up or down.', unit: '' },
      { metric: 'http_requests_total', type: 'counter', help: 'Requests.', unit: 'requests' },
      { metric: 'x', type: 'stateset', help: '', unit: '' },
    ]);
    expect(parse(body).stats.ignoredMetadata).toBe(4);
  });
});
