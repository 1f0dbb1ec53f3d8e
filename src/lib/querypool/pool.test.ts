import { afterEach, describe, expect, it } from 'vitest';
import type { RollupSpec } from '../query/index.ts';
import { SeriesBlocksWriter } from '../storage/series-blocks.ts';
import { BatchBuilder, evalBatch, newDecoder, type BlockBatch } from './batch.ts';
import { BatchError, WorkerFailure } from './errors.ts';
import { QueryPool } from './pool.ts';
import { queryPoolSize, WORKER_BYTES } from './sizing.ts';

const N = 10;
const spec = (func: string): RollupSpec => ({
  func, variants: [0], params: [], strParams: [], rangeMs: 300_000, windows: { start: 300_000, step: 60_000, n: N }, fixed: false,
  grid: { start: 300_000, step: 60_000, n: N }, extended: null, lookbackMs: 300_000, edgeMs: 0, stepMs: 60_000,
});

// batch of k series, each one sample per minute valued i * (series + 1), as plain rows.
function batch(k: number, f = spec('sum_over_time')): BlockBatch {
  const b = new BatchBuilder(f);
  const w = new SeriesBlocksWriter();
  for (let s = 0; s < k; s++) {
    w.begin();
    const ts = Float64Array.from({ length: 20 }, (_, i) => i * 60_000);
    w.rows(ts, ts.map((_, i) => i * (s + 1)), ts.length);
    b.add({ labels: [{ name: 'k', value: String(s) }], minTs: -Infinity, maxTs: Infinity, dedupMs: 0, chunks: w.end() });
  }
  return b.take().batch;
}

const never = new AbortController().signal;
const pools: QueryPool[] = [];
function newPool(o: Partial<ConstructorParameters<typeof QueryPool>[0]> = {}): QueryPool {
  const p = new QueryPool({ size: 1, maxQueued: 4, ...o });
  pools.push(p);
  return p;
}
afterEach(async () => {
  await Promise.all(pools.splice(0).map((p) => p.close()));
});

describe('QueryPool', () => {
  it('evaluates a batch on a worker as evalBatch does in-line', async () => {
    const pool = newPool();
    const want = evalBatch(spec('sum_over_time'), batch(3), newDecoder());
    expect(await pool.run(spec('sum_over_time'), batch(3), never)).toEqual(want);
    // sum over the 5 samples in (t-5m, t] at t = 5m: 1+2+3+4+5 = 15 for series 0.
    expect(want.values[0]).toBe(15);
    expect([...want.samples]).toEqual([20, 20, 20]);
  });

  it('fails the batch of a dying worker with a clear error and replaces the worker', async () => {
    const pool = newPool({ workerUrl: new URL('./testdata/crashing-worker.ts', import.meta.url) });
    const err = await pool.run(spec('crash'), batch(2), never).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(WorkerFailure);
    expect((err as WorkerFailure).code).toBe('ERR_QUERYPOOL_WORKER_DIED');
    expect((err as Error).message).toMatch(/cannot evaluate crash\(\) over 2 series: query worker 0 exited with code 7; it is replaced/);
    expect((await pool.run(spec('sum_over_time'), batch(2), never)).values[0]).toBe(15);
  });

  it('reports a failing series by its index', async () => {
    const pool = newPool();
    const err = await pool.run(spec('no_such_function'), batch(1), never).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(BatchError);
    expect({ code: (err as BatchError).code, series: (err as BatchError).series }).toEqual({ code: 'ERR_QUERYPOOL_BATCH', series: 0 });
    expect((err as Error).message).toMatch(/unknown rollup function "no_such_function"/);
  });

  it('runs more batches than workers and queue slots, in order of arrival, each exactly once', async () => {
    const pool = newPool({ size: 2, maxQueued: 1 });
    const results = await Promise.all(Array.from({ length: 12 }, (_, i) => pool.run(spec('count_over_time'), batch(i + 1), never)));
    expect(results.map((r) => r.samples.length)).toEqual(Array.from({ length: 12 }, (_, i) => i + 1));
    expect(pool.running).toBeLessThanOrEqual(2);
  });

  it('drops queued batches of an aborted query without running them', async () => {
    const pool = newPool({ size: 1, maxQueued: 8 });
    const ac = new AbortController();
    const first = pool.run(spec('sum_over_time'), batch(50), never);
    const queued = pool.run(spec('sum_over_time'), batch(1), ac.signal);
    ac.abort(new Error('query canceled'));
    await expect(queued).rejects.toThrow(/query canceled/);
    await expect(first).resolves.toBeDefined();
  });

  it('lets idle workers exit', async () => {
    const pool = newPool({ idleMs: 20 });
    await pool.run(spec('sum_over_time'), batch(1), never);
    expect(pool.running).toBe(1);
    await new Promise((r) => setTimeout(r, 300));
    expect(pool.running).toBe(0);
    expect((await pool.run(spec('sum_over_time'), batch(1), never)).values[0]).toBe(15);
  });
});

describe('queryPoolSize', () => {
  it('takes an explicit size, else one worker per CPU beyond the first within the memory share', () => {
    expect(queryPoolSize({ requested: 0, cpus: 8, budgetBytes: 1e12 })).toBe(0);
    expect(queryPoolSize({ requested: 3, cpus: 1, budgetBytes: 0 })).toBe(3);
    expect(queryPoolSize({ requested: -1, cpus: 8, budgetBytes: 1e12 })).toBe(7);
    expect(queryPoolSize({ requested: -1, cpus: 2, budgetBytes: 1e12 })).toBe(1);
    expect(queryPoolSize({ requested: -1, cpus: 8, budgetBytes: 3 * WORKER_BYTES + 1 })).toBe(3);
    expect(queryPoolSize({ requested: -1, cpus: 1, budgetBytes: 1e12 })).toBe(0);
    expect(() => queryPoolSize({ requested: -2, cpus: 8, budgetBytes: 1e12 })).toThrow(/-search.queryWorkers/);
  });
});
