import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { silentLogger } from '../common/logger.ts';
import { RawBuffer } from '../buffer/raw-buffer.ts';
import { type BackgroundRunner, InlineRunner, WorkerRunner } from './runner.ts';
import { packItems } from '../index/index-tasks.ts';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

const JAN = Date.UTC(2024, 0, 10);

function buffer(seed: number): RawBuffer {
  const b = new RawBuffer(seed);
  for (let i = 0; i < 100; i++) b.append(b.slotOf(1 + (i % 7)), JAN + i * 1000 + seed, i * seed);
  return b;
}

/** exercise runs every kind of request and returns what ended up on disk. */
async function exercise(r: BackgroundRunner): Promise<{ parts: string[]; rows: number; index: string[] }> {
  const dataDir = mkdtempSync(join(tmpdir(), 'strata-runner-'));
  dirs.push(dataDir);
  const common = { dataDir, zstdLevel: 1, dedupMs: 0, deleted: new Float64Array(0) };
  const a = await r.flush({ ...common, buffers: [buffer(1).share()] });
  const b = await r.flush({ ...common, buffers: [buffer(2).share()] });
  const partitionDir = join(dataDir, '2024_01');
  const meta = await r.merge(
    { partitionDir, inputs: [a[0]!.name, b[0]!.name], outName: '0000000000000000000000aa', zstdLevel: 3, dedupMs: 0, minTs: 0, maxTs: Infinity, deleted: Float64Array.from([7]) },
    new AbortController().signal,
  );
  const indexDir = join(dataDir, 'indexdb');
  const i1 = await r.indexFlush({ dir: indexDir, items: packItems(['\x01a', '\x01b']), maxSeriesId: 3, zstdLevel: 1 });
  const i2 = await r.indexFlush({ dir: indexDir, items: packItems(['\x01c']), maxSeriesId: 5, zstdLevel: 1 });
  const merged = await r.indexMerge({ dir: indexDir, inputs: [i1, i2], cutoffDay: 0, maxSeriesId: 5, zstdLevel: 1 }, new AbortController().signal);
  const parts = readdirSync(partitionDir).filter((n) => n !== 'tmp').sort();
  return { parts: parts.map((p) => (p === '0000000000000000000000aa' ? 'merged' : 'flushed')), rows: meta!.rowsCount, index: [i1, i2, merged].map((n) => readdirSync(join(indexDir, n)).sort().join(',')) };
}

describe('background runners', () => {
  it('the worker thread and the inline runner produce the same results', async () => {
    const w = new WorkerRunner(silentLogger);
    const fromWorker = await exercise(w);
    await w.close();
    const fromInline = await exercise(new InlineRunner());
    expect(fromWorker).toEqual(fromInline);
    // two flushed parts plus the merge output; series 7 was deleted by the merge
    expect(fromWorker.parts.sort()).toEqual(['flushed', 'flushed', 'merged']);
    expect(fromWorker.rows).toBe(200 - 2 * 14);
  });

  it('falls back to the calling thread when the worker cannot start', async () => {
    const r = new WorkerRunner(silentLogger, { url: new URL('./no-such-worker.ts', import.meta.url) });
    const fails: string[] = [];
    for (let i = 0; i < 3; i++) {
      const dir = mkdtempSync(join(tmpdir(), 'strata-runner-'));
      dirs.push(dir);
      await r.indexFlush({ dir, items: packItems(['\x01x']), maxSeriesId: 1, zstdLevel: 1 }).catch((e: unknown) => fails.push(String(e)));
    }
    expect(fails).toHaveLength(3);
    const dir = mkdtempSync(join(tmpdir(), 'strata-runner-'));
    dirs.push(dir);
    const name = await r.indexFlush({ dir, items: packItems(['\x01x']), maxSeriesId: 1, zstdLevel: 1 });
    expect(readdirSync(dir)).toContain(name);
    await r.close();
  });

  // An idle worker exits (its heap and the buffers it still references are freed) and the next
  // request starts a new one. Work that returns within the wait after an exit doubles the wait.
  it('retires an idle worker and starts another on the next request', async () => {
    let now = 0;
    const r = new WorkerRunner(silentLogger, { idleMs: 50, now: () => now });
    const f = async (advance: number, wantStarts: number, wantIdleMs: number) => {
      now += advance;
      const dir = mkdtempSync(join(tmpdir(), 'strata-runner-'));
      dirs.push(dir);
      const name = await r.indexFlush({ dir, items: packItems(['\x01x']), maxSeriesId: 1, zstdLevel: 1 });
      expect(readdirSync(dir)).toContain(name);
      expect([r.running, r.starts, r.idleMs]).toEqual([true, wantStarts, wantIdleMs]);
      for (let i = 0; i < 100 && r.running; i++) await new Promise((res) => setTimeout(res, 20));
      expect(r.running).toBe(false);
    };
    await f(0, 1, 50);
    await f(1000, 2, 50);
    await f(10, 3, 100);
    await r.close();
  });
});
