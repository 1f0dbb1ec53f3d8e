import { availableParallelism } from 'node:os';
import { intFlag } from '../flags/index.ts';
import { gauge } from '../metrics/index.ts';
import type { MemoryBudget } from '../memory/index.ts';
import type { PoolRollupOffload } from './offload.ts';
import { QUERY_WORKERS_SHARE, queryPoolSize } from './sizing.ts';

// Off by default: in a quiet A/B on the 2-core bench machine it made the query set of a
// force-merged store 5-9% faster but a store with several parts per series slower, and 4 clients
// no faster (docs/DECISIONS.md "Query workers").
const queryWorkers = intFlag('search.queryWorkers', 0, 'Worker threads that decode and evaluate the rollups of range selectors (rate(m[5m]), *_over_time, …) of queries over many series beside the event loop. 0: off, queries are evaluated on the event loop only; -1: one per CPU beyond the first (none with one CPU, one with two), fewer if 10% of the memory budget (-memory.allowedBytes / -memory.allowedPercent) cannot hold 48MiB each; N: N workers');

/**
 * queryOffloadFromFlags builds the rollup offload of -search.queryWorkers (after flag parsing), or
 * undefined when it is off. Workers start on first use and exit when idle (pool.ts WORKER_IDLE_MS).
 * The pool and offload modules (and the storage's block batches they use) are imported only when
 * the pool is on: with the default (off) they are not on the start path (issue 18 item 4), and the
 * binaries import this file rather than the package index, which re-exports them.
 */
export async function queryOffloadFromFlags(budget: MemoryBudget): Promise<PoolRollupOffload | undefined> {
  const size = queryPoolSize({ requested: queryWorkers.value, cpus: availableParallelism(), budgetBytes: budget.allowedBytes * QUERY_WORKERS_SHARE });
  if (size === 0) return undefined;
  budget.share('queryWorkers', QUERY_WORKERS_SHARE);
  const [{ PoolRollupOffload }, { QueryPool }] = await Promise.all([import('./offload.ts'), import('./pool.ts')]);
  const pool = new QueryPool({ size, maxQueued: 16 * size });
  gauge('tsdb_query_workers', 'Query worker threads (-search.queryWorkers) running now; they start on demand and exit when idle', [], (g) => g.set(pool.running));
  gauge('tsdb_query_workers_max', 'Query worker threads at most (-search.queryWorkers)', [], (g) => g.set(pool.size));
  return new PoolRollupOffload(pool);
}
