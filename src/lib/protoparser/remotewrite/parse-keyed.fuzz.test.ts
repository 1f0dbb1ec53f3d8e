import { describe, it, expect } from 'vitest';
import fc from 'fast-check';
import { KeyedColumns } from '../common/keyed-columns.ts';
import { METRIC_TYPES, type MetadataUpdate } from '../common/metadata.ts';
import { ErrorSummary, ParseError } from '../common/parse-error.ts';
import type { Label, Row } from '../common/row.ts';
import { SeriesKeyDictionary } from '../common/series-keys.ts';
import { encodeWriteRequest } from './encode.ts';
import { ProtoWriter, WIRE_FIXED64, WIRE_LEN, WIRE_VARINT } from './proto.ts';
import { newStats, seriesRowsOf } from './parse.ts';
import { KeyedRemoteWriteParser } from './parse-keyed.ts';

// Protobuf builders for hand-made write requests: a label, a sample, a series of fields, a request.
const w = (build: (p: ProtoWriter) => void) => {
  const p = new ProtoWriter();
  build(p);
  return Buffer.from(p.finish());
};
const label = (name: string, value: string) => w((p) => { p.tag(1, WIRE_LEN); p.bytes(Buffer.from(name)); p.tag(2, WIRE_LEN); p.bytes(Buffer.from(value)); });
const sample = (v: number, t: number) => w((p) => { p.tag(1, WIRE_FIXED64); p.double(v); p.tag(2, WIRE_VARINT); p.int64(t); });
const series = (...fields: [number, Buffer][]) => w((p) => { for (const [f, b] of fields) { p.tag(f, WIRE_LEN); p.bytes(b); } });
const request = (...ts: Buffer[]) => w((p) => { for (const t of ts) { p.tag(1, WIRE_LEN); p.bytes(t); } });

const show = (r: Row) => `${JSON.stringify(r.labels)} ${r.timestamp} ${Object.is(r.value, -0) ? '-0' : String(r.value)}`;

// plain runs seriesRowsOf; keyed runs the keyed parser with a dictionary shared by all bodies and
// small batches. Rows before a structural error, the error's presence and the skipped series must
// agree, whatever the dictionary knew beforehand, and so must the stats of a request that parses.
function plain(body: Uint8Array) {
  const stats = newStats();
  const errors = new ErrorSummary();
  const rows: Row[] = [];
  const meta: MetadataUpdate[] = [];
  let failed = false;
  try {
    for (const rs of seriesRowsOf(body, stats, errors, (u) => meta.push(u))) rows.push(...rs);
  } catch (e) {
    if (!(e instanceof ParseError)) throw e;
    failed = true;
  }
  return { rows: rows.map(show), raw: rows.map((r) => r.rawKey), meta, stats, errors: errors.describe('series'), failed };
}
function keyed(body: Uint8Array, keys: SeriesKeyDictionary, limit: number) {
  const out = new KeyedColumns(4, keys.table);
  const meta: MetadataUpdate[] = [];
  const p = new KeyedRemoteWriteParser(body, { keys, out, onMetadata: (u) => meta.push(u) });
  const rows: Row[] = [];
  let failed = false;
  try {
    for (;;) {
      const done = p.parse(limit);
      rows.push(...out.toRows());
      out.clear(keys.table);
      if (done) break;
    }
  } catch (e) {
    if (!(e instanceof ParseError)) throw e;
    rows.push(...out.toRows());
    failed = true;
  }
  return { rows: rows.map(show), raw: rows.map((r) => r.rawKey), meta, stats: p.stats, errors: p.errors.describe('series'), failed };
}
function agree(bodies: Uint8Array[], limit: number): void {
  const keys = new SeriesKeyDictionary(1 << 20);
  for (const body of bodies) {
    const want = plain(body);
    const got = keyed(body, keys, limit);
    expect(got.rows).toEqual(want.rows);
    // The keyed parser names labels scattered between other fields too; otherwise the same key.
    got.raw.forEach((k, i) => {
      if (want.raw[i] !== undefined) expect(k).toBe(want.raw[i]);
    });
    expect([got.failed, got.errors, got.meta]).toEqual([want.failed, want.errors, want.meta]);
    // On a structurally broken request the counts are partial: the keyed parser reads a whole series
    // before its labels, seriesRowsOf decodes as it goes, so each counts what it saw up to its own
    // stopping point (a request that fails is answered 400 either way). Whole requests agree.
    if (!want.failed) expect(got.stats).toEqual(want.stats);
  }
}

const labelsArb = fc
  .dictionary(fc.constantFrom('__name__', 'job', 'a', 'b', ''), fc.constantFrom('x', 'y', 'ü', ''), { minKeys: 0, maxKeys: 3 })
  .map((d) => Object.entries(d).map(([name, value]) => ({ name, value })) as Label[]);
const seriesArb = fc.record({
  labels: labelsArb,
  samples: fc.array(fc.tuple(fc.integer({ min: -(2 ** 40), max: 2 ** 40 }), fc.double()), { maxLength: 4 }),
});
const metadataArb = fc.array(fc.record({ metric: fc.constantFrom('', 'up', 'ü_total'), type: fc.constantFrom(...METRIC_TYPES), help: fc.constantFrom('', 'Help.', 'ü\n'), unit: fc.constantFrom('', 'seconds') }), { maxLength: 3 });
const encode = (series: { labels: Label[]; samples: [number, number][] }[], metadata: MetadataUpdate[] = []): Buffer =>
  encodeWriteRequest(series.map((s) => ({ labels: s.labels, timestamps: s.samples.map((x) => x[0]), values: Float64Array.from(s.samples.map((x) => x[1])) })), metadata);

describe('remote write KeyedRemoteWriteParser fuzz', () => {
  it('agrees with seriesRowsOf on valid requests sent again and again', () => {
    const bodies = fc.array(fc.tuple(fc.array(seriesArb, { maxLength: 5 }), metadataArb).map(([s, m]) => encode(s, m)), { minLength: 1, maxLength: 3 }).map((b) => [...b, ...b]);
    fc.assert(fc.property(bodies, fc.integer({ min: 1, max: 6 }), (b, limit) => agree(b, limit)), { numRuns: 500 });
  });

  it('agrees with seriesRowsOf on damaged requests', () => {
    const damaged = fc.tuple(fc.array(seriesArb, { minLength: 1, maxLength: 3 }), fc.array(fc.tuple(fc.nat(), fc.integer({ min: 0, max: 255 })), { maxLength: 4 }), fc.nat(), metadataArb);
    fc.assert(
      fc.property(damaged, ([series, edits, cut, metadata]) => {
        const good = encode(series, metadata);
        const body = Buffer.from(good);
        for (const [at, b] of edits) body[at % body.length] = b;
        agree([good, body, body.subarray(0, cut % (body.length + 1)), good], 3);
      }),
      { numRuns: 800 },
    );
  });

  it('agrees with seriesRowsOf on arbitrary bytes', () => {
    fc.assert(fc.property(fc.array(fc.uint8Array({ maxLength: 200 }), { maxLength: 3 }), (bodies) => agree(bodies, 2)), { numRuns: 800 });
  });
});

describe('remote write KeyedRemoteWriteParser', () => {
  it('reads series whose labels are split by samples, as one set with the same key as a contiguous one', () => {
    const split = request(series([1, label('__name__', 'm')], [2, sample(1, 5)], [1, label('a', 'x')], [2, sample(2, 6)]));
    const joined = request(series([1, label('__name__', 'm')], [1, label('a', 'x')], [2, sample(3, 7)]));
    const keys = new SeriesKeyDictionary(1 << 20);
    expect(keyed(split, keys, 10).rows).toEqual(plain(split).rows);
    expect(keyed(joined, keys, 10).rows).toEqual(plain(joined).rows);
    expect(keys.size).toBe(1);
  });
});

describe('remote write KeyedRemoteWriteParser, predicted keys', () => {
  // A series that starts with the bytes of the predicted key is that key only if no other label
  // field follows: right after them (a longer set) or after its samples (a scattered one).
  const a = series([1, label('__name__', 'a')], [2, sample(1, 1)]);
  const p = (t: number) => series([1, label('__name__', 'p')], [2, sample(t, t)]);

  it('tells the predicted set from a longer one, a scattered one and a shorter body', () => {
    const longer = series([1, label('__name__', 'p')], [1, label('z', '1')], [2, sample(3, 3)]);
    const scattered = series([1, label('__name__', 'p')], [2, sample(4, 4)], [1, label('z', '2')]);
    const noSamples = series([1, label('__name__', 'p')]);
    agree([request(a, p(1)), request(a, p(2)), request(a, longer), request(a, p(5)), request(a, scattered), request(a, noSamples), request(a, p(6))], 10);
  });

  it('agrees with seriesRowsOf when series extend or cut each other (property)', () => {
    const names = fc.constantFrom('p', 'q');
    const seriesOf = fc.tuple(names, fc.array(fc.tuple(fc.constantFrom('z', 'y'), fc.constantFrom('1', '2')), { maxLength: 2 }), fc.boolean(), fc.integer({ min: 0, max: 9 }))
      .map(([n, extra, after, t]) => extra.length === 0 || !after
        ? series([1, label('__name__', n)], ...extra.map(([k, v]) => [1, label(k, v)] as [number, Buffer]), [2, sample(t, t)])
        : series([1, label('__name__', n)], [2, sample(t, t)], ...extra.map(([k, v]) => [1, label(k, v)] as [number, Buffer])));
    fc.assert(fc.property(fc.array(fc.array(seriesOf, { minLength: 1, maxLength: 4 }).map((s) => request(...s)), { minLength: 1, maxLength: 6 }), fc.integer({ min: 1, max: 4 }), (bodies, limit) => agree(bodies, limit)), { numRuns: 500 });
  });
});
