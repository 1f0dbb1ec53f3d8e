// The query routes over real HTTP (fastify on 127.0.0.1:0) against an in-memory storage: error
// envelopes and limits that leave other requests alone, the concurrency queue, deadlines,
// cancellation by a disconnecting client, the rollup result cache, and the default subquery step.

import fc from 'fast-check';
import Fastify, { type FastifyInstance } from 'fastify';
import { afterEach, describe, expect, it } from 'vitest';
import { createLogger } from '../../lib/logger/index.ts';
import { MemorySearcher } from '../../lib/query/index.ts';
import { DEFAULT_TENANT, type SearchQuery, type SeriesSamples } from '../../lib/storageapi/index.ts';
import { ConcurrencyLimiter } from './concurrency.ts';
import { type SelectLimits } from './flags.ts';
import { RollupResultCache } from './rollup-cache.ts';
import { registerSelectRoutes } from './routes.ts';

const MIN = 60_000;
const HOUR = 60 * MIN;
// The clock stands a day after the data, so every step is old enough to be cached.
const NOW = 24 * HOUR;

const LIMITS: SelectLimits = {
  lookbackDeltaMs: 5 * MIN, closedWindows: false, defaultSubqueryStepMs: MIN, maxPointsPerTimeseries: 30_000,
  maxUniqueTimeseries: 300_000, maxSamplesPerQuery: 0, maxSeries: 30_000, maxExportSeries: 1_000_000,
  maxConcurrentRequests: 4, maxQueueDurationMs: 10_000, maxQueryDurationMs: 30_000, maxExportDurationMs: 720 * HOUR, disableCache: false,
  cacheTimestampOffsetMs: 5 * MIN,
};

/**
 * GatedSearcher is a MemorySearcher whose searches can be held at a gate until released or
 * aborted, and which records the time ranges it was asked for.
 */
class GatedSearcher extends MemorySearcher {
  gate: Promise<void> | null = null;
  readonly searches: SearchQuery[] = [];
  readonly aborted: unknown[] = [];

  override async *searchSeries(q: SearchQuery, signal: AbortSignal): AsyncIterable<SeriesSamples> {
    this.searches.push(q);
    if (this.gate !== null) {
      const onAbort = new Promise<void>((_, reject) => signal.addEventListener('abort', () => reject(signal.reason), { once: true }));
      try {
        await Promise.race([this.gate, onAbort]);
      } catch (err) {
        this.aborted.push(err);
        throw err;
      }
    }
    yield* super.searchSeries(q, signal);
  }
}

interface Fixture {
  readonly base: string;
  readonly db: GatedSearcher;
  readonly cache: RollupResultCache;
  readonly limiter: ConcurrencyLimiter;
}

const apps: FastifyInstance[] = [];
afterEach(async () => {
  await Promise.all(apps.splice(0).map((a) => a.close()));
});

async function serve(limits: Partial<SelectLimits> = {}): Promise<Fixture> {
  const db = new GatedSearcher();
  // m{job=a|b}: one sample a minute over the first two hours, value = minutes since 0.
  for (const job of ['a', 'b']) {
    for (let i = 0; i <= 120; i++) db.add(DEFAULT_TENANT, [{ name: '__name__', value: 'm' }, { name: 'job', value: job }], i * MIN, i);
  }
  const all = { ...LIMITS, ...limits };
  const cache = new RollupResultCache(64 << 20);
  const limiter = new ConcurrencyLimiter(all.maxConcurrentRequests);
  const { logger } = createLogger({
    format: 'default', level: 'FATAL', jsonFields: {}, timezone: 'UTC', disableTimestamps: true,
    errorsPerSecondLimit: 0, warnsPerSecondLimit: 0, write: () => {},
  });
  const app = Fastify();
  apps.push(app);
  await app.register(async (a) => registerSelectRoutes(a, { storage: db, tenant: DEFAULT_TENANT, limits: all, limiter, cache, logger, now: () => NOW }));
  const addr = await app.listen({ host: '127.0.0.1', port: 0 });
  return { base: addr, db, cache, limiter };
}

interface Answer {
  readonly status: number;
  readonly body: { status: string; errorType?: string; error?: string; data?: { resultType: string; result: Array<{ metric: Record<string, string>; values?: [number, string][]; value?: [number, string] }> } };
}

async function query(base: string, path: string, params: Record<string, string>, signal?: AbortSignal): Promise<Answer> {
  const r = await fetch(`${base}${path}?${new URLSearchParams(params)}`, { signal });
  return { status: r.status, body: await r.json() as Answer['body'] };
}

const until = async (cond: () => boolean): Promise<void> => {
  while (!cond()) await new Promise((r) => setTimeout(r, 5));
};

describe('request bodies', () => {
  it('takes arguments from a form body and ignores a body of any other type, as vmalert sends (JSON content type, empty body)', async () => {
    const fx = await serve();
    const post = async (url: string, body: string, type: string) => {
      const r = await fetch(`${fx.base}${url}`, { method: 'POST', body, headers: { 'content-type': type } });
      return { status: r.status, body: await r.json() as Answer['body'] };
    };
    for (const [body, type] of [['', 'application/json'], ['{"query":"ignored"}', 'application/json'], ['', 'text/plain']]) {
      const r = await post('/api/v1/query?query=sum(m)&time=3600', body!, type!);
      expect([r.status, r.body.data?.result[0]?.value]).toEqual([200, [3600, '120']]);
    }
    const form = await post('/api/v1/query', 'query=sum(m)&time=3600', 'application/x-www-form-urlencoded');
    expect([form.status, form.body.data?.result[0]?.value]).toEqual([200, [3600, '120']]);
  });
});

describe('errors and limits', () => {
  it('answer 400 naming the position or 422 naming the flag, and leave the other requests alone', async () => {
    const fx = await serve({ maxConcurrentRequests: 1, maxPointsPerTimeseries: 100 });
    const f = async (path: string, params: Record<string, string>, status: number, want: RegExp) => {
      const r = await query(fx.base, path, params);
      expect(r.status, JSON.stringify(r.body)).toBe(status);
      expect(r.body.status).toBe('error');
      expect(r.body.error).toMatch(want);
    };
    const good = { query: 'sum(m)', time: '3600' };
    // All at once against a single slot: each error must give its slot back.
    await Promise.all([
      f('/api/v1/query', { query: 'sum(rate(m[5m]) by (job)' }, 400, /at 1:\d+/),
      f('/api/v1/query', { query: 'm{job="a"' }, 400, /at 1:\d+/),
      f('/api/v1/query', { query: 'm{job=~"(("}' }, 400, /invalid regexp|missing closing/),
      f('/api/v1/query_range', { query: 'm', start: '0', end: '7200', step: '1' }, 422, /-search\.maxPointsPerTimeseries/),
      f('/api/v1/query', { query: 'max_over_time(m[1d:1s])', time: '3600' }, 422, /-search\.maxPointsPerTimeseries/),
      f('/api/v1/query', { query: 'm', time: 'yesterday' }, 400, /invalid parameter "time"/),
      ...Array.from({ length: 5 }, () => query(fx.base, '/api/v1/query', good).then((r) => expect(r.body.data?.result[0]?.value).toEqual([3600, '120']))),
    ]);
    expect(fx.limiter.active).toBe(0);
  });

  it('answers 503 naming -search.maxQueryDuration when a query runs over its deadline', async () => {
    const fx = await serve({ maxQueryDurationMs: 100 });
    fx.db.gate = new Promise(() => {});
    const r = await query(fx.base, '/api/v1/query', { query: 'm' });
    expect(r.status).toBe(503);
    expect(r.body).toMatchObject({ status: 'error', errorType: 'timeout', error: expect.stringContaining('-search.maxQueryDuration') });
    // A lower `timeout` arg applies too.
    const started = performance.now();
    expect((await query(fx.base, '/api/v1/query', { query: 'm', timeout: '20ms' })).status).toBe(503);
    expect(performance.now() - started).toBeLessThan(100);
    expect(fx.db.aborted).toHaveLength(2);
    expect(fx.limiter.active).toBe(0);
  });

  it('lets exports run past -search.maxQueryDuration, up to -search.maxExportDuration', async () => {
    const fx = await serve({ maxQueryDurationMs: 50, maxExportDurationMs: 720 * HOUR });
    let release = () => {};
    fx.db.gate = new Promise((r) => (release = r));
    setTimeout(() => release(), 300);
    const res = await fetch(`${fx.base}/api/v1/export?match[]=m`);
    expect(res.status).toBe(200);
    expect((await res.text()).trim().split('\n')).toHaveLength(2);
    fx.db.gate = new Promise(() => {});
    const cut = await serve({ maxQueryDurationMs: 5_000, maxExportDurationMs: 50 });
    cut.db.gate = new Promise(() => {});
    const r = await query(cut.base, '/api/v1/export', { 'match[]': 'm' });
    expect(r.status).toBe(503);
    expect(r.body).toMatchObject({ errorType: 'timeout', error: expect.stringContaining('-search.maxExportDuration') });
  });
});

describe('-search.maxConcurrentRequests', () => {
  it('queues requests over the limit and answers 429 after -search.maxQueueDuration', async () => {
    const fx = await serve({ maxConcurrentRequests: 1, maxQueueDurationMs: 50 });
    let open = () => {};
    fx.db.gate = new Promise((r) => (open = r));
    const first = query(fx.base, '/api/v1/query', { query: 'sum(m)', time: '600' });
    await until(() => fx.db.searches.length === 1);
    const second = await query(fx.base, '/api/v1/query', { query: 'sum(m)', time: '600' });
    expect(second.status).toBe(429);
    expect(second.body.error).toMatch(/-search\.maxConcurrentRequests/);
    // A queued request gets the slot when the running one ends.
    const third = query(fx.base, '/api/v1/query', { query: 'sum(m)', time: '600' });
    await until(() => fx.limiter.waiting === 1);
    open();
    expect((await first).status).toBe(200);
    expect((await third).body.data?.result[0]?.value).toEqual([600, '20']);
  });
});

describe('a client that disconnects', () => {
  it('cancels its query and frees its slot', async () => {
    const fx = await serve({ maxConcurrentRequests: 1 });
    fx.db.gate = new Promise(() => {});
    const ac = new AbortController();
    const pending = query(fx.base, '/api/v1/query_range', { query: 'sum(m)', start: '0', end: '3600', step: '60' }, ac.signal).catch((e: unknown) => e);
    await until(() => fx.db.searches.length === 1);
    ac.abort();
    await pending;
    await until(() => fx.db.aborted.length === 1);
    await until(() => fx.limiter.active === 0);
    fx.db.gate = null;
    expect((await query(fx.base, '/api/v1/query', { query: 'sum(m)', time: '60' })).status).toBe(200);
  });
});

describe('the rollup result cache', () => {
  const rangeOf = async (fx: Fixture, q: string, start: number, end: number, extra: Record<string, string> = {}) => {
    const r = await query(fx.base, '/api/v1/query_range', { query: q, start: String(start / 1000), end: String(end / 1000), step: '60', ...extra });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    return r.body.data!.result;
  };

  it('evaluates only the new steps of an overlapping window and matches nocache=1', async () => {
    const fx = await serve();
    const q = 'sum by (job) (rate(m[5m]))';
    await rangeOf(fx, q, 0, HOUR);
    expect(fx.cache.size).toBe(1);
    fx.db.searches.length = 0;
    const slid = await rangeOf(fx, q, 10 * MIN, HOUR + 10 * MIN);
    // Only the last ten steps were read from storage (with the 5m window before them).
    expect(fx.db.searches.map((s) => s.timeRange.minTimestamp)).toEqual([HOUR + MIN - 5 * MIN + 1]);
    expect(slid).toEqual(await rangeOf(fx, q, 10 * MIN, HOUR + 10 * MIN, { nocache: '1' }));
    expect(slid[0]!.values).toHaveLength(61);
  });

  it('is bypassed by nocache=1, -search.disableCache and queries that depend on the range or the clock', async () => {
    const f = async (limits: Partial<SelectLimits>, q: string, extra: Record<string, string>, wantEntries: number) => {
      const fx = await serve(limits);
      await rangeOf(fx, q, 0, HOUR, extra);
      expect(fx.cache.size, `${q} ${JSON.stringify(limits)} ${JSON.stringify(extra)}`).toBe(wantEntries);
    };
    await f({}, 'sum(m)', {}, 1);
    await f({}, 'sum(m)', { nocache: '1' }, 0);
    await f({ disableCache: true }, 'sum(m)', {}, 0);
    await f({}, 'time() - start()', {}, 0);
    await f({}, 'sum(m) * range()', {}, 0);
    await f({}, 'rate(m[range()])', {}, 0);
    await f({}, 'now() - time()', {}, 0);
    await f({}, 'running_sum(m)', {}, 0);
    await f({}, 'm @ end()', {}, 0);
  });

  it('gives the right answer for start() after a cached window slides', async () => {
    const fx = await serve();
    await rangeOf(fx, 'time() - start()', 0, HOUR);
    const slid = await rangeOf(fx, 'time() - start()', 10 * MIN, HOUR + 10 * MIN);
    expect(slid[0]!.values?.[0]).toEqual([600, '0']);
  });
});

describe('subqueries without a step', () => {
  it('use -search.defaultSubqueryStep in range and instant queries, or the query step when it is 0', async () => {
    const f = async (defaultSubqueryStepMs: number, path: string, params: Record<string, string>, want: string) => {
      const fx = await serve({ defaultSubqueryStepMs });
      const r = await query(fx.base, path, { query: 'count_over_time(m{job="a"}[10m:])', ...params });
      const first = r.body.data!.result[0]!;
      expect((first.values?.[0] ?? first.value)![1], `${defaultSubqueryStepMs} ${path}`).toBe(want);
    };
    await f(MIN, '/api/v1/query_range', { start: '3600', end: '7200', step: '300' }, '10');
    await f(MIN, '/api/v1/query', { time: '3600' }, '10');
    await f(0, '/api/v1/query_range', { start: '3600', end: '7200', step: '300' }, '2');
    await f(0, '/api/v1/query', { time: '3600' }, '10');
  });
});

describe('arbitrary input', () => {
  it('gets a JSON answer with 200, 400 or 422, never a 500', async () => {
    const fx = await serve({ maxPointsPerTimeseries: 1_000 });
    const app = apps.at(-1)!;
    const text = fc.oneof(fc.string(), fc.constantFrom('sum(', 'm[5m]', 'm{job=~"("}', '1e400', '-1e20', 'now', '-1h', '0.0001', 'NaN', 'Inf', 'rate(m[0s])', 'm offset -1e9s', 'm @ 1e300', 'label_replace(m, "\\xff", "", "", "")', 'm[1h:0s]', 'm[5m:1ms]'));
    const arg = fc.option(text, { nil: undefined });
    await fc.assert(fc.asyncProperty(fc.constantFrom('/api/v1/query', '/api/v1/query_range'), text, arg, arg, arg, arg, async (path, query, time, start, end, step) => {
      const params: Record<string, string> = { query };
      for (const [k, v] of Object.entries({ time, start, end, step })) if (v !== undefined) params[k] = v;
      const r = await app.inject({ method: 'GET', url: `${path}?${new URLSearchParams(params)}` });
      expect([200, 400, 422], `${path} ${JSON.stringify(params)}: ${r.body}`).toContain(r.statusCode);
      expect(JSON.parse(r.body)).toHaveProperty('status');
    }), { numRuns: 300 });
    expect(fx.limiter.active).toBe(0);
  });
});
