// The export bodies as chunks over real HTTP against an in-memory storage: series that span
// chunk boundaries (and strings longer than a whole chunk) come out exactly as the writers spell
// them one by one, and a search failing before the first byte is an error status, not a cut 200.

import Fastify, { type FastifyInstance } from 'fastify';
import { afterEach, describe, expect, it } from 'vitest';
import { createLogger } from '../../lib/logger/index.ts';
import * as csv from '../../lib/protoparser/csv/index.ts';
import * as jsonline from '../../lib/protoparser/jsonline/index.ts';
import * as native from '../../lib/protoparser/native/index.ts';
import { MemorySearcher } from '../../lib/query/index.ts';
import { DEFAULT_TENANT, type SeriesSamples } from '../../lib/storageapi/index.ts';
import { ConcurrencyLimiter } from './concurrency.ts';
import type { SelectLimits } from './flags.ts';
import { RollupResultCache } from './rollup-cache.ts';
import { registerSelectRoutes } from './routes.ts';

const LIMITS: SelectLimits = {
  lookbackDeltaMs: 300_000, closedWindows: false, defaultSubqueryStepMs: 60_000, maxPointsPerTimeseries: 30_000,
  maxUniqueTimeseries: 300_000, maxSamplesPerQuery: 0, maxSeries: 30_000, maxExportSeries: 1_000_000,
  maxConcurrentRequests: 4, maxQueueDurationMs: 10_000, maxQueryDurationMs: 30_000, maxExportDurationMs: 3_600_000, disableCache: true,
  cacheTimestampOffsetMs: 300_000,
};

const apps: FastifyInstance[] = [];
afterEach(async () => {
  await Promise.all(apps.splice(0).map((a) => a.close()));
});

// Series of 0 to ~6,000 samples: rendered, some fill a fraction of a 60 KiB chunk, others
// several chunks; label values with multi-byte characters take the strings' long path in CSV.
function fill(db: MemorySearcher): void {
  for (let s = 0; s < 40; s++) {
    const n = (s * 2311) % 6001;
    const labels = [{ name: '__name__', value: 'm' }, { name: 'i', value: `${s}` }, { name: 'note', value: s % 3 === 0 ? `ünïcødé ✓ ${'€'.repeat(s)}` : 'plain' }];
    for (let i = 0; i < n; i++) db.add(DEFAULT_TENANT, labels, 1_000 + i * 15_000 + (s % 7), s % 2 === 0 ? i * 3 : Math.sin(i + s) * 1e3);
  }
}

async function serve(limits: Partial<SelectLimits> = {}): Promise<{ base: string; db: MemorySearcher }> {
  const db = new MemorySearcher();
  fill(db);
  const { logger } = createLogger({
    format: 'default', level: 'FATAL', jsonFields: {}, timezone: 'UTC', disableTimestamps: true,
    errorsPerSecondLimit: 0, warnsPerSecondLimit: 0, write: () => {},
  });
  const all = { ...LIMITS, ...limits };
  const app = Fastify();
  apps.push(app);
  await app.register(async (a) => registerSelectRoutes(a, {
    storage: db, tenant: DEFAULT_TENANT, limits: all, limiter: new ConcurrencyLimiter(all.maxConcurrentRequests), cache: new RollupResultCache(1 << 20), logger, now: () => 1e9,
  }));
  return { base: await app.listen({ host: '127.0.0.1', port: 0 }), db };
}

async function seriesOf(db: MemorySearcher): Promise<SeriesSamples[]> {
  const out: SeriesSamples[] = [];
  const q = { tenant: DEFAULT_TENANT, matcherSets: [[{ name: '__name__', value: 'm', type: '=' as const }]], timeRange: { minTimestamp: 0, maxTimestamp: 1e9 }, maxSeries: 0 };
  for await (const s of db.searchSeries(q, new AbortController().signal)) out.push(s);
  return out;
}

// expectBody fetches url and checks its status and bytes; a mismatch names the first byte that differs
// (a deep comparison of MiB-sized buffers would take the test's time).
async function expectBody(url: string, want: Buffer): Promise<void> {
  const r = await fetch(url);
  const got = Buffer.from(await r.arrayBuffer());
  expect(r.status).toBe(200);
  let at = 0;
  while (at < got.length && at < want.length && got[at] === want[at]) at++;
  expect({ length: got.length, firstDifference: at }).toEqual({ length: want.length, firstDifference: want.length });
}

describe('export bodies', () => {
  it('are the writers\' output for each series in order, across chunk boundaries, in every format', async () => {
    const { base, db } = await serve();
    const series = await seriesOf(db);
    expect(series.length).toBeGreaterThan(30);
    const json = Buffer.concat(series.map((s) => Buffer.from(jsonline.writeSeries(s.labels, s.timestamps, s.values))));
    expect(json.length).toBeGreaterThan(4 * 60 * 1024);
    await expectBody(`${base}/api/v1/export?match[]=m&start=0`, json);
    const split = Buffer.concat(series.map((s) => Buffer.from(jsonline.writeSeries(s.labels, s.timestamps, s.values, 7))));
    await expectBody(`${base}/api/v1/export?match[]=m&start=0&max_rows_per_line=7`, split);
    const format = '__name__,note,__value__,__timestamp__:unix_ms';
    const columns = csv.parseExportFormat(format);
    const text = Buffer.concat(series.map((s) => Buffer.from(csv.writeSeries(columns, s.labels, s.timestamps, s.values))));
    await expectBody(`${base}/api/v1/export/csv?match[]=m&start=0&format=${format}`, text);
    const blocks = Buffer.concat([native.header(), ...series.filter((s) => s.timestamps.length > 0).map((s) => native.encodeSeries(s.labels, s.timestamps, s.values))]);
    await expectBody(`${base}/api/v1/export/native?match[]=m&start=0`, blocks);
  });

  it('answer an empty body when nothing matches, and only the header in native', async () => {
    const { base } = await serve();
    await expectBody(`${base}/api/v1/export?match[]=nothing`, Buffer.alloc(0));
    await expectBody(`${base}/api/v1/export/native?match[]=nothing`, native.header());
  });

  it('answer 422 naming the limit when the search fails before the first byte, native included', async () => {
    const { base } = await serve({ maxExportSeries: 5 });
    for (const path of ['/api/v1/export', '/api/v1/export/native', '/api/v1/export/csv']) {
      const r = await fetch(`${base}${path}?match[]=m&format=__value__`);
      expect(r.status).toBe(422);
      expect(await r.json()).toMatchObject({ status: 'error', error: expect.stringContaining('-search.maxUniqueTimeseries') });
    }
  });
});
