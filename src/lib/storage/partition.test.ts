import { mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { runFlush } from './background/tasks.ts';
import { SeriesBlockCursor } from './part/block-cursors.ts';
import { silentLogger } from './common/logger.ts';
import { LruCache } from './common/lru-cache.ts';
import { MAX_BLOCK_ROWS } from './part/part-format.ts';
import { InlineRunner } from './background/runner.ts';
import { type MergeSettings, Partition } from './partition.ts';
import { partitionNameOf } from './common/partition-name.ts';
import { RawBuffer } from './buffer/raw-buffer.ts';
import { SeriesScratch } from './part/series-scratch.ts';
import { STALE_NAN, isStaleNaN } from '../storageapi/stale.ts';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});
function newDir(): string {
  const d = mkdtempSync(join(tmpdir(), 'strata-part-'));
  dirs.push(d);
  return d;
}

const JAN = Date.UTC(2024, 0, 10);
const opts = () => ({ cache: new LruCache<never>(1 << 20), logger: silentLogger });
const mergeOpts = (over: Partial<MergeSettings> = {}): MergeSettings => ({
  zstdLevel: 3, dedupMs: 0, minTs: -Infinity, maxTs: Infinity, deleted: new Float64Array(0), signal: new AbortController().signal,
  runner: new InlineRunner(), ...over,
});

/** read returns every sample of series id in partition p within [minTs, maxTs]. */
function read(p: Partition, id: number, minTs = -Infinity, maxTs = Infinity): [number, number][] {
  const s = new SeriesScratch();
  for (const part of p.parts) {
    new SeriesBlockCursor(part, minTs, maxTs).collect(id, (h, j) => {
      s.ensure(h.rows[j]!);
      part.readBlock(h, j, s.ts, s.vals, s.n);
      s.n += h.rows[j]!;
    });
  }
  const out: [number, number][] = [];
  for (let i = 0; i < s.n; i++) out.push([s.ts[i]!, s.vals[i]!]);
  return out.sort((a, b) => a[0] - b[0]);
}

async function flushBuffer(dataDir: string, parts: Map<string, Partition>, b: RawBuffer): Promise<void> {
  const written = await runFlush({ buffers: [b.share()], dataDir, zstdLevel: 3, dedupMs: 0, deleted: new Float64Array(0) }, new AbortController().signal);
  for (const w of written) {
    let p = parts.get(w.partition);
    if (!p) {
      p = Partition.create(dataDir, w.partition, opts());
      parts.set(w.partition, p);
    }
    await p.install(w);
  }
}

async function flush(dataDir: string, parts: Map<string, Partition>, rows: [number, number, number][]): Promise<void> {
  const b = new RawBuffer(1);
  for (const [id, ts, v] of rows) b.append(b.slotOf(id), ts, v);
  await flushBuffer(dataDir, parts, b);
}

describe('data parts', () => {
  it('flush buffers into partitions by month and read series back', async () => {
    const dataDir = newDir();
    const parts = new Map<string, Partition>();
    const feb = Date.UTC(2024, 1, 1);
    await flush(dataDir, parts, [[2, JAN + 2000, 20], [1, JAN + 1000, 1.5], [1, JAN, 1], [2, feb, 21], [1, JAN + 1000, 9], [3, JAN + 3000, 30]]);
    expect([...parts.keys()].sort()).toEqual(['2024_01', '2024_02']);
    const jan = parts.get('2024_01')!;
    // out of order input comes back sorted; the duplicate keeps the larger value
    expect(read(jan, 1)).toEqual([[JAN, 1], [JAN + 1000, 9]]);
    expect(read(jan, 2)).toEqual([[JAN + 2000, 20]]);
    expect(read(parts.get('2024_02')!, 2)).toEqual([[feb, 21]]);
    // a series after one that ended in February goes back to January's part
    expect(read(jan, 3)).toEqual([[JAN + 3000, 30]]);
    // time range filtering works at block granularity: the caller crops
    expect(read(jan, 1, JAN + 5000)).toEqual([]);
    expect(partitionNameOf(feb - 1)).toBe('2024_01');
    for (const p of parts.values()) p.close();
  });

  it('splits long series into blocks and keeps staleness markers', async () => {
    const dataDir = newDir();
    const n = MAX_BLOCK_ROWS * 2 + 10;
    const b = new RawBuffer(1);
    const slot = b.slotOf(5);
    for (let i = 0; i < n; i++) b.append(slot, JAN + i * 1000, i === n - 1 ? STALE_NAN : i);
    const parts = new Map<string, Partition>();
    await flushBuffer(dataDir, parts, b);
    const p = parts.get('2024_01')!;
    expect(p.parts[0]!.meta.blocksCount).toBe(3);
    const got = read(p, 5);
    expect(got).toHaveLength(n);
    expect(got[100]).toEqual([JAN + 100_000, 100]);
    const s = new SeriesScratch();
    new SeriesBlockCursor(p.parts[0]!, JAN + (n - 1) * 1000, Infinity).collect(5, (h, j) => {
      s.ensure(h.rows[j]!);
      p.parts[0]!.readBlock(h, j, s.ts, s.vals, s.n);
      s.n += h.rows[j]!;
    });
    expect(isStaleNaN(s.vals[s.n - 1]!)).toBe(true);
    p.close();
  });

  it('merges parts, dropping deleted series and samples outside retention, and applying dedup', async () => {
    const dataDir = newDir();
    const parts = new Map<string, Partition>();
    await flush(dataDir, parts, [[1, JAN, 1], [1, JAN + 10_000, 2], [2, JAN, 5]]);
    await flush(dataDir, parts, [[1, JAN + 5_000, 3], [1, JAN + 20_000, 4], [3, JAN, 7]]);
    await flush(dataDir, parts, [[1, JAN + 10_000, 0], [3, JAN + 30_000, 8]]);
    const p = parts.get('2024_01')!;
    expect(p.parts).toHaveLength(3);
    await p.forceMerge(mergeOpts({ deleted: Float64Array.from([2]), minTs: JAN + 1 }));
    expect(p.parts).toHaveLength(1);
    expect(readdirSync(p.dir).filter((f) => f !== 'tmp').sort()).toEqual([p.parts[0]!.name, 'parts.json']);
    expect(read(p, 1)).toEqual([[JAN + 5_000, 3], [JAN + 10_000, 2], [JAN + 20_000, 4]]);
    expect(read(p, 2)).toEqual([]);
    expect(read(p, 3)).toEqual([[JAN + 30_000, 8]]);
    await p.forceMerge(mergeOpts({ dedupMs: 10_000 }), true);
    expect(read(p, 1)).toEqual([[JAN + 10_000, 2], [JAN + 20_000, 4]]);
    p.close();
    // a reopened partition sees the merged part only
    const again = Partition.open(dataDir, '2024_01', opts())!;
    expect(again.parts).toHaveLength(1);
    expect(read(again, 3)).toEqual([[JAN + 30_000, 8]]);
    again.close();
  });

  it('a merge leaving nothing removes the inputs; open() removes leftovers and manifest-less partitions', async () => {
    const dataDir = newDir();
    const parts = new Map<string, Partition>();
    await flush(dataDir, parts, [[1, JAN, 1]]);
    const p = parts.get('2024_01')!;
    await p.forceMerge(mergeOpts({ deleted: Float64Array.from([1]) }), true);
    expect(p.parts).toHaveLength(0);
    p.close();
    mkdirSync(join(p.dir, 'tmp', 'x'), { recursive: true });
    mkdirSync(join(p.dir, '00000000000000000000dead'));
    const again = Partition.open(dataDir, '2024_01', opts())!;
    expect(readdirSync(again.dir)).toEqual(['parts.json']);
    await again.drop();
    mkdirSync(join(dataDir, '2024_03'));
    expect(Partition.open(dataDir, '2024_03', opts())).toBeUndefined();
    expect(readdirSync(dataDir)).toEqual([]);
  });
});
