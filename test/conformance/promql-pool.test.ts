import { afterAll, describe, expect, it } from 'vitest';
import { PoolRollupOffload, QueryPool } from '../../src/lib/querypool/index.ts';
import { formatTable, MAIN_DIR, passRate, runDirectory, totals, V242_DIR } from './corpus.ts';
import type { FileReport } from './runner.ts';

// failures lists what differed from Prometheus, with the message: the same evals must fail the same way.
const failures = (reports: readonly FileReport[]): string[] => reports.flatMap((r) => r.failures.map((f) => `${r.file}:${f.line} ${f.message}`));

// The conformance corpus again with rollups evaluated on query workers (-search.queryWorkers):
// every series is a batch of its own (batchWork 0) and every rollup is taken (minSteps 0); one
// worker and a window of four batches, so a rollup's batches go to the worker while it has room
// (one running, one queued) and are evaluated on the calling thread once it is saturated (caller
// runs): the results of both, merged in series order, must be exactly those of the engine's own loop.
const pool = new QueryPool({ size: 1, maxQueued: 8 });
const rollupOffload = new PoolRollupOffload(pool, { batchWork: 0, window: 4, minSteps: 0 });
afterAll(() => pool.close());

describe('PromQL conformance with rollups on query workers', () => {
  it('gives the prometheus-main corpus the same results as the engine alone', async () => {
    const reports = await runDirectory(MAIN_DIR, { rollupOffload });
    const t = totals(reports);
    for (const r of reports) for (const f of r.failures) console.log(`differs from Prometheus with query workers: ${r.file}:${f.line} ${f.query}\n     ${f.message}`);
    expect(t).toEqual(totals(await runDirectory(MAIN_DIR)));
    expect(passRate(t)).toBe(1);
  });

  it('gives the prometheus-v2.42.0 corpus with closed windows the same results as the engine alone', async () => {
    const reports = await runDirectory(V242_DIR, { closedWindows: true, rollupOffload });
    console.log(formatTable('prometheus-v2.42.0, closedWindows, query workers', reports));
    const alone = await runDirectory(V242_DIR, { closedWindows: true });
    expect(totals(reports)).toEqual(totals(alone));
    expect(failures(reports)).toEqual(failures(alone));
  });
});
