import fc from 'fast-check';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { FUNCTIONS } from '../promql/index.ts';
import { instant, MemorySearcher, range, ROLLUP_FUNCTIONS, type QueryOptions, type RollupOffload } from '../query/index.ts';
import { DEFAULT_TENANT, STALE_NAN, type Labels, type Searcher } from '../storageapi/index.ts';
import { FakeClock, openTest, row, T0, TempDirs } from '../storage/testdata/helpers.ts';
import { MIN_STEPS, PoolRollupOffload } from './offload.ts';
import { QueryPool } from './pool.ts';

const pool = new QueryPool({ size: 2, maxQueued: 4 });
afterAll(() => pool.close());
// Batches of about one series, two in flight: every range-selector rollup crosses threads.
const pooled = new PoolRollupOffload(pool, { batchWork: 1, window: 2, minSteps: 0 });
// One batch for the whole selection: the in-line path of the same unit.
const inline = new PoolRollupOffload(pool, { batchWork: Number.MAX_SAFE_INTEGER, minSteps: 0 });
// One worker, batches of one series, the default window: once the worker has a batch running and
// one queued, the query evaluates the next ones itself (caller runs), so a selection is split
// between the thread and the worker.
class CountingPool extends QueryPool {
  runs = 0;
  override run(...args: Parameters<QueryPool['run']>): ReturnType<QueryPool['run']> {
    this.runs++;
    return super.run(...args);
  }
}
const pool1 = new CountingPool({ size: 1, maxQueued: 4 });
afterAll(() => pool1.close());
const mixed = new PoolRollupOffload(pool1, { batchWork: 1, minSteps: 0 });

const MIN = 60_000;

// Every function over a range vector, its required scalar arguments 0.5 (a valid smoothing
// factor and quantile) and its string arguments left out when optional.
const CALLS: readonly string[] = [...ROLLUP_FUNCTIONS.keys()].flatMap((name) => {
  const sig = FUNCTIONS.get(name)!;
  const args: string[] = [];
  for (let i = 0; i < sig.minArgs; i++) {
    const t = sig.args[i];
    if (t === 'range') args.push('$');
    else if (t === 'scalar') args.push('0.5');
    else return [];
  }
  return [`${name}(${args.join(', ')})`];
});

// outcome runs a query and returns its result or its error message (both must be equal).
async function outcome(run: () => Promise<unknown>): Promise<unknown> {
  try {
    return await run();
  } catch (err) {
    return `error: ${(err as Error).message}`;
  }
}

function opts(offload: RollupOffload | undefined, extra: Partial<QueryOptions> = {}): QueryOptions {
  return { now: () => 0, lookbackDeltaMs: 5 * MIN, ...extra, ...(offload === undefined ? {} : { rollupOffload: offload }) };
}

const seriesArb = fc.array(
  fc.record({
    job: fc.constantFrom('a', 'b', 'c', 'd', 'e'),
    inst: fc.integer({ min: 0, max: 3 }),
    samples: fc.array(fc.tuple(fc.integer({ min: 0, max: 60 * 40 }), fc.oneof(fc.double({ noDefaultInfinity: true }), fc.integer({ min: -5, max: 100 }), fc.constant(-1))), { maxLength: 60 }),
  }),
  { minLength: 1, maxLength: 12 },
);

function load(series: readonly { job: string; inst: number; samples: [number, number][] }[]): MemorySearcher {
  const db = new MemorySearcher();
  for (const s of series) {
    const labels: Labels = [{ name: '__name__', value: 'm' }, { name: 'inst', value: String(s.inst) }, { name: 'job', value: s.job }];
    // -1 stands for a staleness marker (NaN payloads do not survive plain arrays).
    for (const [sec, v] of s.samples) db.add(DEFAULT_TENANT, labels, sec * 1000, v === -1 ? STALE_NAN : v);
  }
  return db;
}

const queryArb = fc.record({
  call: fc.constantFrom(...CALLS),
  window: fc.constantFrom('1m', '5m', '13m', '1h'),
  modifier: fc.constantFrom('', ' offset 2m', ' @ 1200', ' anchored', ' smoothed'),
  selector: fc.constantFrom('m', 'm{job="a"}', 'm{job=~"a|b"}', '{__name__="m", inst!="0"}'),
  start: fc.integer({ min: 0, max: 40 }),
  steps: fc.integer({ min: 1, max: 60 }),
  stepSec: fc.constantFrom(15, 60, 77),
  closed: fc.boolean(),
});

describe('rollups on query workers', () => {
  it('give exactly the engine-alone results, statistics and errors, pooled and in-line (property)', async () => {
    await fc.assert(
      fc.asyncProperty(seriesArb, queryArb, async (series, q) => {
        const db = load(series);
        const expr = q.call.replace('$', `${q.selector}[${q.window}]${q.modifier}`);
        const start = q.start * MIN;
        const end = start + (q.steps - 1) * q.stepSec * 1000;
        const run = (o: RollupOffload | undefined) => outcome(() => range(db, expr, start, end, q.stepSec * 1000, opts(o, { closedWindows: q.closed })));
        const alone = await run(undefined);
        expect(await run(pooled)).toEqual(alone);
        expect(await run(inline)).toEqual(alone);
        expect(await run(mixed)).toEqual(alone);
        const at = (o: RollupOffload | undefined) => outcome(() => instant(db, `sum by (job) (${expr})`, end, opts(o)));
        expect(await at(pooled)).toEqual(await at(undefined));
      }),
      { numRuns: 150 },
    );
  });

  it('evaluates batches on the calling thread while the pool is saturated, in series order', async () => {
    const db = new MemorySearcher();
    for (let k = 0; k < 40; k++) for (let i = 0; i < 90; i++) db.add(DEFAULT_TENANT, [{ name: '__name__', value: 'm' }, { name: 'k', value: String(k).padStart(2, '0') }], i * MIN, i * (k + 1));
    const q = 'rate(m[5m])';
    const before = pool1.runs;
    const got = await range(db, q, 0, 80 * MIN, MIN, opts(mixed));
    const pooledBatches = pool1.runs - before;
    expect(got).toEqual(await range(db, q, 0, 80 * MIN, MIN, opts(undefined)));
    // 40 batches of one series: some went to the worker, the others ran here.
    expect(pooledBatches).toBeGreaterThan(0);
    expect(pooledBatches).toBeLessThan(40);
  });

  it('sends every batch to the pool while another query is being rolled up, with the same results', async () => {
    const db = new MemorySearcher();
    for (let k = 0; k < 40; k++) for (let i = 0; i < 90; i++) db.add(DEFAULT_TENANT, [{ name: '__name__', value: 'm' }, { name: 'k', value: String(k).padStart(2, '0') }], i * MIN, i * (k + 1));
    const q = 'rate(m[5m])';
    const want = await range(db, q, 0, 80 * MIN, MIN, opts(undefined));
    // A first query that has started its rollup and waits for its consumer stays active.
    const spec = { func: 'rate', variants: [0], params: [], strParams: [], rangeMs: 5 * MIN, windows: { start: 0, step: MIN, n: 81 }, fixed: false, grid: { start: 0, step: MIN, n: 81 }, extended: null, lookbackMs: 5 * MIN, edgeMs: 0, stepMs: MIN };
    const search = { tenant: DEFAULT_TENANT, matcherSets: [[{ name: '__name__', type: '=' as const, value: 'm' }]], timeRange: { minTimestamp: -5 * MIN, maxTimestamp: 80 * MIN }, maxSeries: 0 };
    const first = mixed.rollup(db, search, spec, new AbortController().signal)[Symbol.asyncIterator]();
    await first.next();
    const before = pool1.runs;
    expect(await range(db, q, 0, 80 * MIN, MIN, opts(mixed))).toEqual(want);
    // With another query in the offload, the event loop has that query's work to do: all 40 went to the worker.
    expect(pool1.runs - before).toBe(40);
    while (!(await first.next()).done);
  });

  it('keeps -search.maxSamplesPerQuery and the fetch statistics', async () => {
    const db = new MemorySearcher();
    for (let k = 0; k < 20; k++) for (let i = 0; i < 30; i++) db.add(DEFAULT_TENANT, [{ name: '__name__', value: 'm' }, { name: 'k', value: String(k) }], i * MIN, i);
    const run = (o: RollupOffload | undefined, maxSamples: number) => outcome(() => range(db, 'rate(m[5m])', 0, 30 * MIN, MIN, opts(o, { maxSamples })));
    for (const max of [0, 100, 599, 600]) {
      expect(await run(pooled, max)).toEqual(await run(undefined, max));
      expect(await run(mixed, max)).toEqual(await run(undefined, max));
    }
    expect(await run(pooled, 100)).toMatch(/-search.maxSamplesPerQuery/);
  });

  it('leaves rollups of fewer than MIN_STEPS steps per series to the engine, with the same results', async () => {
    const db = new MemorySearcher();
    for (let k = 0; k < 20; k++) for (let i = 0; i < 90; i++) db.add(DEFAULT_TENANT, [{ name: '__name__', value: 'm' }, { name: 'k', value: String(k) }], i * MIN, i * (k + 1));
    let offloaded = 0;
    const counting = new (class extends PoolRollupOffload {
      override rollup(...args: Parameters<PoolRollupOffload['rollup']>): ReturnType<PoolRollupOffload['rollup']> {
        offloaded++;
        return super.rollup(...args);
      }
    })(pool, { batchWork: 1 });
    const q = 'sum(rate(m[5m]))';
    expect(await instant(db, q, 80 * MIN, opts(counting))).toEqual(await instant(db, q, 80 * MIN, opts(undefined)));
    expect(await range(db, q, 0, (MIN_STEPS - 2) * MIN, MIN, opts(counting))).toEqual(await range(db, q, 0, (MIN_STEPS - 2) * MIN, MIN, opts(undefined)));
    expect(offloaded).toBe(0);
    expect(await range(db, q, 0, (MIN_STEPS - 1) * MIN, MIN, opts(counting))).toEqual(await range(db, q, 0, (MIN_STEPS - 1) * MIN, MIN, opts(undefined)));
    expect(offloaded).toBe(1);
  });

  it('stops when the query is aborted', async () => {
    const db = new MemorySearcher();
    for (let k = 0; k < 50; k++) for (let i = 0; i < 30; i++) db.add(DEFAULT_TENANT, [{ name: '__name__', value: 'm' }, { name: 'k', value: String(k) }], i * MIN, i);
    const ac = new AbortController();
    ac.abort(new Error('client went away'));
    await expect(range(db, 'rate(m[5m])', 0, 30 * MIN, MIN, { ...opts(pooled), signal: ac.signal })).rejects.toThrow(/client went away/);
  });
});

describe('rollups on query workers over the storage engine (stored blocks)', () => {
  const dirs = new TempDirs();
  afterEach(() => dirs.cleanup());

  it('give exactly the results of the engine over searchSeries', async () => {
    const s = await openTest(dirs.make(), new FakeClock());
    try {
      const base = T0 - 6 * 3600_000;
      const rows = [];
      for (let k = 0; k < 20; k++) {
        for (let i = 0; i < 600; i++) {
          // Counters with resets, a gap, and some series that end early.
          if (k % 7 === 3 && i > 450) break;
          if (i > 200 && i < 230) continue;
          rows.push(row({ __name__: 'req', job: `j${k % 3}`, k: String(k) }, base + i * 15_000 + (k % 5) * 1000, (i * (k + 1)) % (500 + k * 10)));
        }
      }
      await s.addRows(DEFAULT_TENANT, rows);
      await s.forceFlush();
      // A second part and buffered rows overlapping it: the decoder sorts and resolves duplicates.
      const later = [];
      for (let k = 0; k < 20; k += 3) for (let i = 600; i < 650; i++) later.push(row({ __name__: 'req', job: `j${k % 3}`, k: String(k) }, base + i * 15_000, i));
      await s.addRows(DEFAULT_TENANT, later);
      await s.forceFlush();
      await s.addRows(DEFAULT_TENANT, [row({ __name__: 'req', job: 'j0', k: '0' }, base + 620 * 15_000, -7), row({ __name__: 'req', job: 'j1', k: '1' }, base + 650 * 15_000, STALE_NAN)]);
      const store: Searcher = s;
      const queries = [
        ...CALLS.map((c) => c.replace('$', 'req[5m]')),
        'sum by (job) (rate(req[5m]))', 'increase(req{job="j1"}[1h])', 'quantile_over_time(0.9, req[30m])', 'rate(req[5m] offset 10m)',
      ];
      for (const q of queries) {
        const run = (o: RollupOffload | undefined) => outcome(() => range(store, q, base, base + 3 * 3600_000, 300_000, opts(o, { now: () => T0 })));
        const alone = await run(undefined);
        expect(await run(pooled), q).toEqual(alone);
        expect(await run(inline), q).toEqual(alone);
        expect(await run(mixed), q).toEqual(alone);
      }
    } finally {
      await s.close();
    }
  }, 180_000);
});
