// Property and fuzz tests of the RPC byte layer: frames cut the same however the stream is
// chunked, every decoder fails only with the protocol's errors on arbitrary bytes, and every value
// survives encode → decode (NaN payloads included).

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ByteWriter } from '../bytes/index.ts';
import { CorruptDataError } from '../bytes/index.ts';
import type { LabelMatcher, Labels, MetricRow, SearchQuery, TsdbStatus } from '../storageapi/api.ts';
import { LimitExceededError, MatcherError, NodeUnavailableError } from '../storageapi/errors.ts';
import { STALE_NAN } from '../storageapi/stale.ts';
import {
  reader, readLabels, readSearchQuery, readStrings, readTsdbStatus, readTsdbStatusQuery, RpcProtocolError, writeSearchQuery, writeTsdbStatus,
} from './codec.ts';
import { readError, writeError } from './errors-codec.ts';
import { finishFrame, type Frame, FrameDecoder, newFrame } from './frame.ts';
import { SeriesKeyTable } from '../protoparser/common/series-keys.ts';
import { ClientDictionary, ServerDictionary } from './rows-codec.ts';
import { SeriesAssembler, seriesFrameBodies } from './series-codec.ts';
import { encodeTimestamps } from '../storage/encoding/timestamps.ts';
import { ValueEncoder } from '../storage/encoding/values.ts';
import { plainSeriesBlocks, SeriesBlocksWriter, type SeriesBlocks } from '../storage/series-blocks.ts';

// bits are a double's bytes. Stored straight into a typed array: an array literal ([v]) would let
// V8 canonicalise NaN payloads.
function bits(v: number): string {
  const f = new Float64Array(1);
  f[0] = v;
  return Buffer.from(f.buffer).toString('hex');
}

const protocolError = (err: unknown) => err instanceof RpcProtocolError || err instanceof CorruptDataError;

/** mustFailCleanly runs fn on hostile input: it may succeed or throw the protocol's errors, nothing else. */
function mustFailCleanly(fn: () => unknown): void {
  try {
    fn();
  } catch (err) {
    if (!protocolError(err)) throw err;
  }
}

const text = fc.string({ unit: 'grapheme', maxLength: 12 });
const label = fc.record({ name: fc.string({ minLength: 1, maxLength: 8 }), value: fc.string({ minLength: 1, maxLength: 12 }) });
const labels = fc.uniqueArray(label, { selector: (l) => l.name, minLength: 1, maxLength: 6 }).map((ls) => ls.sort((a, b) => (a.name < b.name ? -1 : 1)));
const matcher: fc.Arbitrary<LabelMatcher> = fc.record({ name: text, type: fc.constantFrom('=', '!=', '=~', '!~'), value: text });
const u32 = fc.integer({ min: 0, max: 0xffffffff });
const query: fc.Arbitrary<SearchQuery> = fc.record({
  tenant: fc.record({ accountID: u32, projectID: u32 }),
  matcherSets: fc.array(fc.array(matcher, { maxLength: 3 }), { maxLength: 3 }),
  timeRange: fc.record({ minTimestamp: fc.double(), maxTimestamp: fc.double() }),
  maxSeries: fc.nat(),
});

describe('FrameDecoder', () => {
  const frames = fc.array(fc.record({ type: fc.integer({ min: 0, max: 255 }), id: fc.nat(), body: fc.uint8Array({ maxLength: 300 }) }), { maxLength: 8 });

  it('cuts the same frames however the bytes are chunked', () => {
    fc.assert(fc.property(frames, fc.array(fc.nat({ max: 400 }), { maxLength: 10 }), (fs, cuts) => {
      const wire = Buffer.concat(fs.map((f) => {
        const w = newFrame(f.type, f.id, f.body.length);
        w.writeBytes(f.body);
        return finishFrame(w);
      }));
      const got: { type: number; id: number; body: number[] }[] = [];
      const d = new FrameDecoder(1 << 20);
      const points = [...new Set(cuts.map((c) => Math.min(c, wire.length)))].sort((a, b) => a - b);
      let at = 0;
      for (const p of [...points, wire.length]) {
        d.push(wire.subarray(at, p), (f: Frame) => void got.push({ type: f.type, id: f.id, body: [...f.buf.subarray(f.bodyStart)] }));
        at = p;
      }
      expect(got).toEqual(fs.map((f) => ({ type: f.type, id: f.id, body: [...f.body] })));
      expect(d.buffered).toBe(0);
    }));
  });

  it('refuses arbitrary bytes only with RpcProtocolError, and a frame over the limit from its length field', () => {
    fc.assert(fc.property(fc.array(fc.uint8Array({ maxLength: 64 }), { maxLength: 6 }), (chunks) => {
      const d = new FrameDecoder(256);
      mustFailCleanly(() => chunks.forEach((c) => d.push(Buffer.from(c), () => {})));
    }));
    const d = new FrameDecoder(1024);
    expect(() => d.push(Buffer.from([0xff, 0xff, 0xff, 0x7f]), () => {})).toThrow(/frame length 2147483647 is outside 2..1024/);
  });
});

describe('value codecs', () => {
  it('round-trip queries, tsdb status queries and statistics', () => {
    fc.assert(fc.property(query, (q) => {
      const w = new ByteWriter();
      writeSearchQuery(w, q);
      const got = readSearchQuery(reader(Buffer.from(w.copy()), 'query'));
      expect(got).toEqual(q);
    }));
    const nameCounts = fc.array(fc.record({ name: text, count: fc.nat() }), { maxLength: 4 });
    const status: fc.Arbitrary<TsdbStatus> = fc.record({
      totalSeries: fc.nat(), totalLabelValuePairs: fc.nat(), seriesCountByMetricName: nameCounts, seriesCountByLabelName: nameCounts,
      seriesCountByFocusLabelValue: nameCounts, seriesCountByLabelValuePair: nameCounts, labelValueCountByLabelName: nameCounts,
    });
    fc.assert(fc.property(status, (s) => {
      const w = new ByteWriter();
      writeTsdbStatus(w, s);
      expect(readTsdbStatus(reader(Buffer.from(w.copy()), 'status'))).toEqual(s);
    }));
  });

  it('round-trip the errors storage throws on purpose as the same classes', () => {
    const f = (err: Error, check: (e: Error) => void) => {
      const w = new ByteWriter();
      writeError(w, err);
      const got = readError(reader(Buffer.from(w.copy()), 'error'), 'node:1');
      expect(got.message).toContain(err.message);
      check(got);
    };
    f(new LimitExceededError('too many series', '-search.maxUniqueTimeseries', 3), (e) => {
      expect(e).toBeInstanceOf(LimitExceededError);
      expect(e.message).toBe('too many series');
      expect((e as LimitExceededError).flag).toBe('search.maxUniqueTimeseries');
      expect((e as LimitExceededError).limit).toBe(3);
    });
    f(new MatcherError('bad regexp'), (e) => expect(e).toBeInstanceOf(MatcherError));
    f(new Error('disk on fire'), (e) => expect(e).not.toBeInstanceOf(NodeUnavailableError));
  });

  it('decode arbitrary bytes only into values or protocol errors', () => {
    const decoders = [readSearchQuery, readTsdbStatusQuery, readTsdbStatus, readLabels, readStrings, (r: ReturnType<typeof reader>) => readError(r, 'n:1')];
    fc.assert(fc.property(fc.uint8Array({ maxLength: 200 }), (bytes) => {
      for (const d of decoders) mustFailCleanly(() => d(reader(Buffer.from(bytes), 'fuzz')));
      mustFailCleanly(() => new ServerDictionary(4096).decode(reader(Buffer.from(bytes), 'fuzz')));
      mustFailCleanly(() => new SeriesAssembler().push(Buffer.from(bytes)));
    }));
  });
});

describe('addRows payload', () => {
  const row: fc.Arbitrary<MetricRow> = fc.record({
    labels,
    timestamp: fc.integer({ min: 0, max: 2 ** 45 }),
    value: fc.oneof(fc.double(), fc.constant(STALE_NAN)),
    rawKey: fc.option(fc.string({ maxLength: 4 }), { nil: undefined }),
  }).map((r) => (r.rawKey === undefined ? { labels: r.labels, timestamp: r.timestamp, value: r.value } : r));

  it('carries every row exactly through the series dictionary, resets and frame limits included', () => {
    fc.assert(fc.property(fc.array(fc.array(row, { maxLength: 30 }), { maxLength: 6 }), fc.integer({ min: 300, max: 3000 }), (batches, budget) => {
      // rawKeys must name one label set each (the contract): derive them from the labels.
      const client = new ClientDictionary(budget);
      const server = new ServerDictionary(budget);
      for (const batch of batches) {
        const rows = batch.map((r) => (r.rawKey === undefined ? r : { ...r, rawKey: JSON.stringify(r.labels) }));
        for (let from = 0; from < rows.length;) {
          const w = new ByteWriter();
          const next = client.encode(w, { accountID: 1, projectID: 2 }, rows, from, 1024);
          expect(next).toBeGreaterThan(from);
          const got = server.decode(reader(Buffer.from(w.copy()), 'rows'));
          expect(got.tenant).toEqual({ accountID: 1, projectID: 2 });
          for (let i = 0; i < got.rows.length; i++) {
            const want = rows[from + i]!;
            expect(got.rows.table.labels[got.rows.keys[i]!]).toEqual(want.labels);
            expect(got.rows.timestamps[i]).toBe(want.timestamp);
          }
          expect(Array.from(got.rows.values, bits)).toEqual(rows.slice(from, next).map((r) => bits(r.value)));
          from = next;
        }
      }
    }));
  });

  it('carries keyed batches exactly, across tables, interleaved row calls, resets and frame limits', () => {
    const keyedBatch = fc.record({
      table: fc.integer({ min: 0, max: 1 }),
      rows: fc.array(fc.record({ key: fc.nat(), timestamp: fc.integer({ min: 0, max: 2 ** 45 }), value: fc.oneof(fc.double(), fc.constant(STALE_NAN)) }), { maxLength: 30 }),
      // rawKeys must name one label set each (the contract): derived from the labels.
      alsoRows: fc.array(row.map((r) => (r.rawKey === undefined ? r : { ...r, rawKey: JSON.stringify(r.labels) })), { maxLength: 3 }),
    });
    fc.assert(fc.property(fc.array(labels, { minLength: 1, maxLength: 12 }), fc.array(keyedBatch, { maxLength: 6 }), fc.integer({ min: 300, max: 3000 }), (sets, batches, budget) => {
      const tables = [new SeriesKeyTable(), new SeriesKeyTable()];
      const client = new ClientDictionary(budget);
      const server = new ServerDictionary(budget);
      const check = (encode: (w: ByteWriter, from: number) => number, count: number, want: (i: number) => MetricRow) => {
        for (let from = 0; from < count;) {
          const w = new ByteWriter();
          const next = encode(w, from);
          expect(next).toBeGreaterThan(from);
          const got = server.decode(reader(Buffer.from(w.copy()), 'rows'));
          for (let i = 0; i < got.rows.length; i++) {
            const r = want(from + i);
            expect(got.rows.table.labels[got.rows.keys[i]!]).toEqual(r.labels);
            expect(got.rows.timestamps[i]).toBe(r.timestamp);
            expect(bits(got.rows.values[i]!)).toBe(bits(r.value));
          }
          from = next;
        }
      };
      for (const b of batches) {
        // Tables grow as parsers' do: a key is added before a batch names it.
        const t = tables[b.table]!;
        const keys = Int32Array.from(b.rows, (r) => {
          const want = sets[r.key % sets.length]!;
          const k = t.labels.findIndex((ls) => JSON.stringify(ls) === JSON.stringify(want));
          if (k >= 0) return k;
          t.labels.push(want);
          t.rawKeys.push('');
          return t.labels.length - 1;
        });
        // Columns at an offset into their buffers, as a subarray of a parser's arrays would be.
        const ts = new Float64Array(keys.length + 3).subarray(3);
        const vs = new Float64Array(keys.length + 3).subarray(3);
        b.rows.forEach((r, i) => ((ts[i] = r.timestamp), (vs[i] = r.value)));
        const cols = { length: keys.length, keys, timestamps: ts, values: vs, table: t };
        check((w, from) => client.encodeKeyed(w, { accountID: 1, projectID: 2 }, cols, from, 1024), keys.length,
          (i) => ({ labels: t.labels[keys[i]!]!, timestamp: ts[i]!, value: vs[i]! }));
        check((w, from) => client.encode(w, { accountID: 1, projectID: 2 }, b.alsoRows, from, 1024), b.alsoRows.length, (i) => b.alsoRows[i]!);
      }
    }));
  });
});

// bodies returns the SERIES frame bodies of s.
function bodies(s: SeriesBlocks): Buffer[] {
  const out: Buffer[] = [];
  seriesFrameBodies(s, (body) => {
    const w = new ByteWriter();
    body(w);
    out.push(Buffer.from(w.bytes()));
  });
  return out;
}

// blockSeries: one part of two stored blocks, then buffered rows, as a node sends them.
function blockSeries(ls: Labels): SeriesBlocks {
  const w = new SeriesBlocksWriter();
  w.begin();
  w.part();
  for (const [from, zstd] of [[0, 0], [100, 1]] as const) {
    const ts = Float64Array.from({ length: 100 }, (_, i) => 1000 + (from + i) * 10 + (i % 3));
    const vs = Float64Array.from(ts, (t, i) => (i % 7 === 0 ? STALE_NAN : t / 4));
    const tw = new ByteWriter();
    const tsEnc = encodeTimestamps(ts, 0, ts.length, tw, zstd);
    const vw = new ByteWriter();
    const valEnc = new ValueEncoder(zstd).encode(vs, 0, vs.length, vw);
    w.block({ rows: 100, minTs: ts[0]!, maxTs: ts[99]!, tsEnc, valEnc }, tw.bytes(), vw.bytes());
  }
  w.rows(Float64Array.of(5, 1000), Float64Array.of(1, 2), 2);
  return { labels: ls, minTs: 0, maxTs: 1e6, dedupMs: 0, chunks: w.end() };
}

describe('searchSeries payload', () => {
  it('reassembles plain series split over frames, bit-exact', () => {
    const sample = fc.record({ t: fc.integer({ min: 0, max: 2 ** 45 }), v: fc.oneof(fc.double(), fc.constant(STALE_NAN)) });
    fc.assert(fc.property(labels, fc.uniqueArray(sample, { minLength: 1, maxLength: 200, selector: (x) => x.t }), (ls, samples) => {
      samples.sort((a, b) => a.t - b.t);
      const s = { labels: ls, timestamps: Float64Array.from(samples, (x) => x.t), values: Float64Array.from(samples, (x) => x.v) };
      const a = new SeriesAssembler();
      let got;
      for (const b of bodies(plainSeriesBlocks(s))) got = a.push(b);
      expect(got).toBeTruthy();
      expect(got!.labels).toEqual(ls);
      expect(Buffer.from(got!.values.buffer).equals(Buffer.from(s.values.buffer))).toBe(true);
      expect(Array.from(got!.timestamps)).toEqual(Array.from(s.timestamps));
    }));
    // A series longer than a chunk spans several frames.
    const n = 100_000;
    const long = { labels: [{ name: 'a', value: 'b' }], timestamps: Float64Array.from({ length: n }, (_, i) => i), values: Float64Array.from({ length: n }, (_, i) => i / 3) };
    const frames = bodies(plainSeriesBlocks(long));
    expect(frames.length).toBeGreaterThan(1);
    const a = new SeriesAssembler();
    const got = frames.map((f) => a.push(f));
    expect(got.slice(0, -1).every((g) => g === undefined)).toBe(true);
    expect(Array.from(got.at(-1)!.values)).toEqual(Array.from(long.values));
  });

  it('decodes stored blocks with the engine decoder and trims them to the range', () => {
    const ls = [{ name: '__name__', value: 'x' }];
    const a = new SeriesAssembler();
    const [frame] = bodies(blockSeries(ls));
    const got = a.push(frame!)!;
    expect(got.timestamps.length).toBe(201); // 200 block samples + 2 rows, one on a block timestamp
    expect(got.timestamps[0]).toBe(5);
    const trimmed = a.push(bodies({ ...blockSeries(ls), minTs: 1500, maxTs: 1600 })[0]!)!;
    expect(Array.from(trimmed.timestamps).every((t) => t >= 1500 && t <= 1600)).toBe(true);
    expect(a.push(bodies({ ...blockSeries(ls), minTs: 1e7, maxTs: 2e7 })[0]!)).toBeNull();
  });

  it('fails malformed block frames with a protocol error, never a crash', () => {
    const good = bodies(blockSeries([{ name: '__name__', value: 'x' }]))[0]!;
    fc.assert(fc.property(fc.array(fc.record({ at: fc.nat(), byte: fc.nat(255) }), { maxLength: 6 }), fc.nat(), fc.boolean(), (flips, cut, truncate) => {
      const bytes = Buffer.from(good);
      for (const f of flips) bytes[f.at % bytes.length] = f.byte;
      const input = truncate ? bytes.subarray(0, cut % (bytes.length + 1)) : bytes;
      mustFailCleanly(() => new SeriesAssembler().push(input));
    }), { numRuns: 3000 });
  });
});
