import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { DataPart } from './data-part.ts';
import { SeriesBlockCursor } from './block-cursors.ts';
import { LruCache } from '../common/lru-cache.ts';
import { CorruptDataError } from '../common/errors.ts';
import { PartWriter } from './part-writer.ts';
import { SeriesScratch } from './series-scratch.ts';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

const T = 1_700_000_000_000;
// Series 1: 20,000 jittered scrapes of a counter (three blocks); series 2: 100 regular ones.
const ts1 = Float64Array.from({ length: 20_000 }, (_, i) => T + i * 15_000 + ((i * 7) % 5));
const vals1 = Float64Array.from({ length: 20_000 }, (_, i) => Math.round(i * 12.34 + ((i * 13) % 7)) / 100);
const ts2 = Float64Array.from({ length: 100 }, (_, i) => T + i * 60_000);
const vals2 = Float64Array.from({ length: 100 }, (_, i) => i % 9);

function writePart(): { dir: string; name: string } {
  const dir = mkdtempSync(join(tmpdir(), 'strata-data-part-'));
  dirs.push(dir);
  const w = new PartWriter(join(dir, 'p1'), 3);
  w.addSeries(1, ts1, vals1, ts1.length);
  w.addSeries(2, ts2, vals2, ts2.length);
  w.finish();
  return { dir, name: 'p1' };
}

describe('SeriesBlockCursor.readSeries', () => {
  it.each([false, true])('returns the samples of a window, decoding recent windows from the blocks\' ends (inflated values cached: %s)', (cached) => {
    const { dir, name } = writePart();
    const values = cached ? new LruCache<Uint8Array>(1 << 20) : undefined;
    const part = DataPart.open(dir, name, new LruCache(1 << 20), values);
    const f = (id: number, minTs: number, maxTs: number) => {
      const [ts, vals] = id === 1 ? [ts1, vals1] : [ts2, vals2];
      const s = new SeriesScratch();
      new SeriesBlockCursor(part, minTs, maxTs).readSeries(id, s);
      // readSeries may return samples outside the window (whole blocks); cut as searches do.
      const lo = s.firstAtOrAfter(minTs);
      const hi = s.firstAfter(maxTs);
      const want = Array.from(ts).map((t, i) => [t, vals[i]!]).filter(([t]) => t! >= minTs && t! <= maxTs);
      expect(Array.from(s.ts.subarray(lo, hi), (t, i) => [t, s.vals[lo + i]!])).toEqual(want);
      for (let i = 1; i < s.n; i++) expect(s.ts[i]!).toBeGreaterThan(s.ts[i - 1]!);
    };
    f(1, ts1[19_990]! - 1, Infinity);
    f(1, ts1[19_999]!, ts1[19_999]!);
    f(1, ts1[8191]! + 1, ts1[8192]! + 2);
    f(1, ts1[5000]!, ts1[12_000]!);
    f(1, -Infinity, Infinity);
    f(2, ts2[97]! - 0.5, Infinity);
    f(2, ts2[50]!, ts2[60]!);
    f(2, ts2[99]! + 1, Infinity);
    if (values !== undefined) {
      // The tail decodes above went through the cache; asked again, they are served from it,
      // with the same samples.
      expect(values.size).toBeGreaterThan(0);
      const hits = values.hits;
      f(1, ts1[19_990]! - 1, Infinity);
      f(1, ts1[8191]! + 1, ts1[8192]! + 2);
      expect(values.hits).toBeGreaterThan(hits);
    }
    part.release();
    if (values !== undefined) expect(values.size).toBe(0);
  });

  it('names the series and the part when a block does not decode, keeping the cause', () => {
    const { dir, name } = writePart();
    // Cut the timestamp file short: series 2's blocks come last, so its read comes up short.
    const tsFile = join(dir, name, 'timestamps.bin');
    const bytes = readFileSync(tsFile);
    writeFileSync(tsFile, bytes.subarray(0, bytes.length - 1));
    const part = DataPart.open(dir, name, new LruCache(1 << 20));
    const s = new SeriesScratch();
    expect(new SeriesBlockCursor(part, -Infinity, Infinity).readSeries(1, s)).toBe(3);
    let err: unknown;
    try {
      new SeriesBlockCursor(part, -Infinity, Infinity).readSeries(2, s);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(CorruptDataError);
    expect((err as Error).message).toMatch(new RegExp(`^cannot read series 2 of part ".*${name}": cannot read a block of part .*short read`));
    expect((err as Error).cause).toBeInstanceOf(CorruptDataError);
    part.release();
  });
});

describe('DataPart.open', () => {
  it('reads parts of format versions 1 and 2 and refuses others', () => {
    const { dir, name } = writePart();
    const metaFile = join(dir, name, 'metadata.json');
    const meta = JSON.parse(readFileSync(metaFile, 'utf8')) as Record<string, unknown>;
    expect(meta.formatVersion).toBe(2);
    const f = (version: number, ok: boolean) => {
      writeFileSync(metaFile, JSON.stringify({ ...meta, formatVersion: version }));
      if (ok) DataPart.open(dir, name, new LruCache(1 << 20)).release();
      else expect(() => DataPart.open(dir, name, new LruCache(1 << 20))).toThrow(/cannot open part .*unsupported format version 3/);
    };
    f(1, true);
    f(2, true);
    f(3, false);
  });
});
