// Metric metadata in ingestion bodies (Prometheus text HELP/TYPE/UNIT lines, remote-write
// metadata) reaches InsertOptions.metadata with its tenant, on every parse path: keyed on the
// event loop, rows (with extra_label), and the parse workers.

import Fastify, { type FastifyInstance } from 'fastify';
import { afterEach, describe, expect, it } from 'vitest';
import { common, remotewrite } from '../../lib/protoparser/index.ts';
import { type Inserter, type Tenant } from '../../lib/storageapi/index.ts';
import { testInsertOptions } from './insert.test-helpers.ts';
import { type InsertOptions } from './ingest.ts';
import { ParsePool, RecentMetadata } from '../../lib/keyedparse/index.ts';
import { registerInsertRoutes } from './routes.ts';

const apps: FastifyInstance[] = [];
const pools: ParsePool[] = [];
afterEach(async () => {
  for (const a of apps.splice(0)) await a.close();
  for (const p of pools.splice(0)) await p.close();
});

/** KeyedDiscard takes rows and keyed batches (as the in-process storage does) and keeps nothing. */
const keyedDiscard: Inserter & { addKeyedRows(): Promise<void> } = { addRows: async () => {}, addKeyedRows: async () => {} };
const TENANT: Tenant = { accountID: 3, projectID: 4 };

async function setup(extra: Partial<InsertOptions> = {}) {
  const got: Array<[Tenant, common.MetadataUpdate]> = [];
  const o: InsertOptions = {
    ...testInsertOptions(keyedDiscard),
    prometheusKeys: new common.SeriesKeyDictionary(1 << 20),
    remoteWriteKeys: new common.SeriesKeyDictionary(1 << 20),
    metadata: (t, u) => got.push([t, u]),
    ...extra,
  };
  const app = Fastify();
  await app.register(async (scope) => registerInsertRoutes(scope, o, TENANT));
  apps.push(app);
  const post = async (url: string, payload: string | Buffer, headers: Record<string, string> = {}) => (await app.inject({ method: 'POST', url, payload, headers })).statusCode;
  return { got, post };
}

const TEXT = '# HELP up Whether the target is up.\n# TYPE up gauge\nup{job="a"} 1\n# UNIT req_seconds seconds\r\n# a comment\nreq_seconds 2\n';
const WANT = [
  [TENANT, { metric: 'up', help: 'Whether the target is up.' }],
  [TENANT, { metric: 'up', type: 'gauge' }],
  [TENANT, { metric: 'req_seconds', unit: 'seconds' }],
];

describe('metric metadata in ingestion bodies', () => {
  it('is kept from Prometheus text on the keyed path and the row path (extra_label)', async () => {
    const { got, post } = await setup();
    expect(await post('/api/v1/import/prometheus', TEXT)).toBe(204);
    expect(got).toEqual(WANT);
    got.length = 0;
    expect(await post('/api/v1/import/prometheus?extra_label=x=y', TEXT)).toBe(204);
    expect(got).toEqual(WANT);
  });

  it('is kept from Prometheus text parsed on worker threads', async () => {
    const parsePool = new ParsePool({ workers: 1, keyBytesPerWorker: 1 << 20, logger: testInsertOptions(keyedDiscard).logger });
    pools.push(parsePool);
    const { got, post } = await setup({ parsePool });
    // Long enough for several chunks, so metadata also rides on chunkDone messages.
    const body = Array.from({ length: 3000 }, (_, i) => `# HELP m${i} Help ${i}.\nm${i} ${i}\n`).join('');
    expect(await post('/api/v1/import/prometheus', body)).toBe(204);
    expect(got).toHaveLength(3000);
    expect(got[2999]).toEqual([TENANT, { metric: 'm2999', help: 'Help 2999.' }]);
  });

  it('is kept from remote write, keyed or not', async () => {
    const { got, post } = await setup();
    const body = remotewrite.encodeWriteRequestSnappy([{ labels: [{ name: '__name__', value: 'up' }], timestamps: [1], values: [1] }], [{ metric: 'up', type: 'gauge', help: 'Up.', unit: '' }]);
    const headers = { 'content-encoding': 'snappy', 'content-type': 'application/x-protobuf' };
    expect(await post('/api/v1/write', body, headers)).toBe(204);
    expect(await post('/api/v1/write?extra_label=a=b', body, headers)).toBe(204);
    expect(got).toEqual([[TENANT, { metric: 'up', type: 'gauge', help: 'Up.', unit: '' }], [TENANT, { metric: 'up', type: 'gauge', help: 'Up.', unit: '' }]]);
  });

  it('is not decoded again when a body repeats it within the window (recentMetadata)', async () => {
    const { got, post } = await setup({ recentMetadata: new RecentMetadata() });
    expect(await post('/api/v1/import/prometheus', TEXT)).toBe(204);
    expect(await post('/api/v1/import/prometheus', TEXT)).toBe(204);
    expect(await post('/api/v1/import/prometheus', TEXT.replace('Whether', 'If'))).toBe(204);
    expect(got).toEqual([...WANT, [TENANT, { metric: 'up', help: 'If the target is up.' }]]);
  });

  it('is skipped without InsertOptions.metadata (-enableMetadata=false)', async () => {
    const { got, post } = await setup({ metadata: undefined });
    expect(await post('/api/v1/import/prometheus', TEXT)).toBe(204);
    expect(got).toEqual([]);
  });
});
