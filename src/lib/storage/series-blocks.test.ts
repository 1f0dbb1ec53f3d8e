// The block path of a search (searchSeriesBlocks on a node, SeriesBlocksDecoder on a select
// node) must give exactly what the engine's own searchSeries gives: same series, same samples,
// bit for bit (staleness markers), whatever the range, the deduplication interval, the mix of
// parts and buffered rows, and deleted series.

import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import { DEFAULT_TENANT, type SeriesSamples } from '../storageapi/api.ts';
import { STALE_NAN } from '../storageapi/stale.ts';
import { ByteWriter } from '../bytes/index.ts';
import { CorruptDataError } from '../bytes/index.ts';
import { SeriesBlocksDecoder, SeriesBlocksWriter, plainSeriesBlocks, type SeriesBlocks } from './series-blocks.ts';
import { FakeClock, T0, TempDirs, m, never, openTest, query, row } from './testdata/helpers.ts';
import { encodeTimestamps } from './encoding/timestamps.ts';
import { ValueEncoder } from './encoding/values.ts';

const dirs = new TempDirs();
afterEach(() => dirs.cleanup());

// decodeAll is what a select node does with a node's SeriesBlocks.
function decodeAll(sb: SeriesBlocks, d = new SeriesBlocksDecoder()): SeriesSamples | undefined {
  d.begin('test series');
  for (const c of sb.chunks) d.push(c, sb.minTs, sb.maxTs);
  const [lo, hi] = d.finish(sb.dedupMs, sb.minTs, sb.maxTs);
  if (hi <= lo) return undefined;
  return { labels: sb.labels, timestamps: d.scratch.ts.slice(lo, hi), values: d.scratch.vals.slice(lo, hi) };
}

const key = (s: SeriesSamples) => JSON.stringify(s.labels);
const dump = (s: SeriesSamples) => ({ ts: Array.from(s.timestamps), bits: Buffer.from(s.values.buffer, s.values.byteOffset, s.values.byteLength).toString('hex') });

describe('searchSeriesBlocks', () => {
  it('decodes to exactly what searchSeries returns', async () => {
    for (const dedupMs of [0, 30_000]) await sameAsSearch(dedupMs, false);
  });

  it('decodes parts that follow on in time, or meet inside another part, to exactly what searchSeries returns', async () => {
    await sameAsSearch(0, true);
  });
});

// sameAsSearch checks the block path against searchSeries over random ranges. allParts: the late
// rows are flushed too, for series k < 3 only (the first 3 × 500 rows: a part inside the second
// part's span), then a fourth part follows on; series k >= 3 then come from parts that follow on,
// with no buffered rows.
async function sameAsSearch(dedupMs: number, allParts: boolean): Promise<void> {
  const s = await openTest(dirs.make(), new FakeClock(), { minScrapeIntervalMs: dedupMs });
  const base = T0 - 40_000_000;
  // Series 0..5: 20,000 samples every 1-3 s (three blocks per part), some staleness markers;
  // two flushes (two parts overlapping in time), then buffered rows overlapping both.
  const rows = (from: number, to: number, step: number, v: number) => {
    const out = [];
    for (let k = 0; k < 6; k++) for (let i = from; i < to; i++) out.push(row({ __name__: 'm', k: String(k) }, base + i * step + k, i % 97 === 0 ? STALE_NAN : v + i * k));
    return out;
  };
  await s.addRows(DEFAULT_TENANT, rows(0, 12_000, 1000, 1));
  await s.forceFlush();
  await s.addRows(DEFAULT_TENANT, rows(10_000, 20_000, 1500, 2));
  await s.forceFlush();
  await s.addRows(DEFAULT_TENANT, rows(19_000, 19_500, 1000, 3).filter((_, i) => i % 3 === 0 && (!allParts || i < 3 * 500)));
  if (allParts) {
    await s.forceFlush();
    await s.addRows(DEFAULT_TENANT, rows(20_000, 21_000, 1500, 4));
    await s.forceFlush();
  }
  await s.deleteSeries(query([[m('k', '=', '4')]], 0, T0), never());
  const end = base + 30_000_000;
  await fc.assert(fc.asyncProperty(fc.integer({ min: -1_000_000, max: 31_000_000 }), fc.integer({ min: 0, max: 31_000_000 }), fc.boolean(), async (a, len, borrow) => {
    const q = query([[m('__name__', '=', 'm')]], base + a, Math.min(end, base + a + len));
    const want = new Map<string, ReturnType<typeof dump>>();
    for await (const x of s.searchSeries(q, never())) want.set(key(x), dump(x));
    const got = new Map<string, ReturnType<typeof dump>>();
    const d = new SeriesBlocksDecoder();
    // Borrowed chunks (views of the search's reused memory) decode the same when read before the next.
    for await (const sb of s.searchSeriesBlocks({ ...q, borrow }, never())) {
      const x = decodeAll(sb, d);
      if (x !== undefined) got.set(key(x), dump(x));
    }
    expect(got).toEqual(want);
  }), { numRuns: 25 });
  await s.close();
}

describe('SeriesBlocksDecoder', () => {
  it('keeps plain samples bit-exact, also over several chunks', () => {
    const n = 150_000;
    const ts = Float64Array.from({ length: n }, (_, i) => 1000 + i * 10);
    const vs = Float64Array.from({ length: n }, (_, i) => (i % 5 === 0 ? STALE_NAN : i / 7));
    const sb = plainSeriesBlocks({ labels: [{ name: '__name__', value: 'x' }], timestamps: ts, values: vs });
    expect(sb.chunks.length).toBeGreaterThan(1);
    const got = decodeAll(sb)!;
    expect(dump(got)).toEqual(dump({ labels: [], timestamps: ts, values: vs }));
  });

  // validChunk: one part with two blocks (the second compressed) and buffered rows, to mutate.
  function validChunk(): Uint8Array {
    const w = new SeriesBlocksWriter();
    w.begin();
    w.part();
    for (const [from, zstd] of [[0, 0], [100, 1]] as const) {
      const ts = Float64Array.from({ length: 100 }, (_, i) => 1000 + (from + i) * 10 + (i % 3));
      const vs = Float64Array.from(ts, (t, i) => (i % 2 ? t / 2 : i));
      const tw = new ByteWriter();
      const tsEnc = encodeTimestamps(ts, 0, ts.length, tw, zstd);
      const vw = new ByteWriter();
      const valEnc = new ValueEncoder(zstd).encode(vs, 0, vs.length, vw);
      w.block({ rows: 100, minTs: ts[0]!, maxTs: ts[99]!, tsEnc, valEnc }, tw.bytes(), vw.bytes());
    }
    w.rows(Float64Array.of(5, 1000), Float64Array.of(1, 2), 2);
    return w.end()[0]!;
  }

  it('decodes the valid chunk the fuzzing starts from', () => {
    const d = new SeriesBlocksDecoder();
    d.begin('valid series');
    d.push(validChunk(), -Infinity, Infinity);
    const [lo, hi] = d.finish(0, -Infinity, Infinity);
    expect(hi - lo).toBe(201); // 200 block samples and 2 rows, one of them a duplicate timestamp
  });

  it('fails malformed items with CorruptDataError, never anything else', () => {
    const good = validChunk();
    fc.assert(fc.property(fc.array(fc.record({ at: fc.nat(), byte: fc.nat(255) }), { maxLength: 6 }), fc.nat(), fc.boolean(), (flips, cut, truncate) => {
      const bytes = Uint8Array.from(good);
      for (const f of flips) bytes[f.at % bytes.length] = f.byte;
      const input = truncate ? bytes.subarray(0, cut % (bytes.length + 1)) : bytes;
      const d = new SeriesBlocksDecoder();
      d.begin('fuzzed series');
      try {
        d.push(input, -Infinity, Infinity);
        d.finish(0, -Infinity, Infinity);
      } catch (err) {
        if (!(err instanceof CorruptDataError)) throw err;
      }
    }), { numRuns: 2000 });
  });
});
