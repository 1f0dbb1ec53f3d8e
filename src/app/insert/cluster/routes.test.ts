// The cluster's ingestion routes, /insert/<tenant>/<format>/…, through the shard router to
// in-memory storage nodes: every format of the single node under its cluster path, tenants from
// the URL, and the single node's answers for bad input.

import Fastify, { type FastifyInstance } from 'fastify';
import { gzipSync } from 'node:zlib';
import { afterEach, describe, expect, it } from 'vitest';
import { MemorySearcher } from '../../../lib/query/index.ts';
import { KeyDictionaries, ParsePool } from '../../../lib/keyedparse/index.ts';
import { type Logger } from '../../../lib/logger/index.ts';
import { common, native, remotewrite } from '../../../lib/protoparser/index.ts';
import { type SeriesSamples, type Tenant } from '../../../lib/storageapi/index.ts';
import { type InsertOptions } from '../ingest.ts';
import { testInsertOptions } from '../insert.test-helpers.ts';
import { ShardRouter } from './router.ts';
import { registerClusterInsertRoutes } from './routes.ts';

const apps: FastifyInstance[] = [];
const pools: ParsePool[] = [];
afterEach(async () => {
  for (const a of apps.splice(0)) await a.close();
  for (const p of pools.splice(0)) await p.close();
});

// How tsdb-insert parses: into rows, keyed on the event loop (its default), or keyed on parse
// workers (-insert.parseWorkers). The routes must answer the same in each.
type Parsing = 'rows' | 'keyed' | 'workers';
const PARSINGS: Parsing[] = ['rows', 'keyed', 'workers'];

function keyedOptions(parsing: Parsing, logger: Logger): Partial<InsertOptions> {
  if (parsing === 'rows') return {};
  const keys = { prometheusKeys: new common.SeriesKeyDictionary(1 << 20), remoteWriteKeys: new common.SeriesKeyDictionary(1 << 20), influxKeys: new KeyDictionaries(1 << 20) };
  if (parsing === 'keyed') return keys;
  const parsePool = new ParsePool({ workers: 1, keyBytesPerWorker: 1 << 20, logger });
  pools.push(parsePool);
  return { ...keys, parsePool };
}

describe.each(PARSINGS)('cluster ingestion routes, parsing %s', (parsing) => {
  async function setup(maxRequestBytes?: number) {
    const nodes = [new MemorySearcher(), new MemorySearcher()];
    const router = new ShardRouter({ nodes: nodes.map((inserter, i) => ({ name: `s${i}`, inserter })), replicationFactor: 2, writeTimeoutMs: 1000, now: Date.now });
    const counted: Array<[string, string, number]> = [];
    const base = testInsertOptions(router, maxRequestBytes);
    const o = { ...base, ...keyedOptions(parsing, base.logger), onInserted: (t: Tenant, type: string, n: number) => void counted.push([`${t.accountID}:${t.projectID}`, type, n]) };
    const app = Fastify();
    await app.register(async (scope) => registerClusterInsertRoutes(scope, o));
    apps.push(app);
    const post = (url: string, payload: string | Buffer, headers: Record<string, string> = {}) => app.inject({ method: 'POST', url, payload, headers });
    // samples returns what node k holds for tenant t, as "name{labels} value@ts" lines, sorted.
    const samples = async (k: number, t: Tenant): Promise<string[]> => {
      const out: string[] = [];
      const q = { tenant: t, matcherSets: [], timeRange: { minTimestamp: 0, maxTimestamp: 1e13 }, maxSeries: 0 };
      for await (const s of nodes[k]!.searchSeries(q, new AbortController().signal) as AsyncIterable<SeriesSamples>) {
        const name = s.labels.map((l) => `${l.name}=${l.value}`).join(',');
        s.timestamps.forEach((ts, i) => out.push(`${name} ${s.values[i]}@${ts}`));
      }
      return out.sort();
    };
    return { app, nodes, post, samples, counted };
  }

  const T0 = { accountID: 0, projectID: 0 };
  const T12 = { accountID: 1, projectID: 2 };

  it('serves every ingestion format of the single node under /insert/<tenant>/ (SPEC D)', async () => {
    const { post, samples, counted } = await setup();
    const f = async (url: string, body: string | Buffer, headers?: Record<string, string>) => {
      const res = await post(url, body, headers);
      expect(res.statusCode, `${url}: ${res.body}`).toBe(204);
    };
    await f('/insert/0/prometheus/api/v1/import/prometheus', 'prom{job="a"} 1 1700000000000\n');
    const rw = remotewrite.encodeWriteRequestSnappy([{ labels: [{ name: '__name__', value: 'rw' }], timestamps: [5], values: new Float64Array([6]) }]);
    await f('/insert/0/prometheus/api/v1/write', rw, { 'content-encoding': 'snappy', 'content-type': 'application/x-protobuf' });
    await f('/insert/0/prometheus/api/v1/import', '{"metric":{"__name__":"j"},"values":[1],"timestamps":[7]}', { 'content-type': 'application/json' });
    await f('/insert/0/prometheus/api/v1/import/csv?format=1:metric:csv,2:label:city,3:time:unix_s', '21.5,Paris,1700000000\n');
    const nat = Buffer.concat([native.header(), native.encodeSeries([{ name: '__name__', value: 'nat' }], new Float64Array([8]), new Float64Array([9]))]);
    await f('/insert/0/prometheus/api/v1/import/native', nat);
    await f('/insert/0/influx/write?db=d&precision=s', 'cpu,host=h usage=3 1700000000');
    await f('/insert/0/influx/api/v2/write?bucket=b&precision=s', 'mem free=4 1700000000');
    await f('/insert/0/opentsdb/api/put', '[{"metric":"tsdb.put","timestamp":1700000000,"value":5,"tags":{"host":"h"}}]', { 'content-type': 'application/json' });
    const series = JSON.stringify({ series: [{ metric: 'dd.load', points: [[1_700_000_000, 0.5]], tags: ['env:prod'], host: 'h1' }] });
    await f('/insert/0/agentfmt/api/v1/series', series, { 'content-type': 'application/json' });
    const want = [
      '__name__=cpu_usage,db=d,host=h 3@1700000000000',
      '__name__=csv,city=Paris 21.5@1700000000000',
      '__name__=dd.load,env=prod,host=h1 0.5@1700000000000',
      '__name__=j 1@7',
      '__name__=mem_free,db=b 4@1700000000000',
      '__name__=nat 9@8',
      '__name__=prom,job=a 1@1700000000000',
      '__name__=rw 6@5',
      '__name__=tsdb.put,host=h 5@1700000000000',
    ];
    // Replication factor 2 over two nodes: each holds everything.
    expect(await samples(0, T0)).toEqual(want);
    expect(await samples(1, T0)).toEqual(want);
    expect(counted.map(([t, type]) => `${t} ${type}`)).toEqual([
      '0:0 prometheus', '0:0 promremotewrite', '0:0 vmimport', '0:0 csvimport', '0:0 native', '0:0 influx', '0:0 influx', '0:0 opentsdbhttp', '0:0 agentfmt',
    ]);
  });

  it('writes to the tenant of the URL, accountID alone meaning projectID 0', async () => {
    const { post, samples, counted } = await setup();
    expect((await post('/insert/1:2/prometheus/api/v1/import/prometheus', 'a 1 1000')).statusCode).toBe(204);
    expect((await post('/insert/7/prometheus/api/v1/import/prometheus', 'b 1 1000')).statusCode).toBe(204);
    expect(await samples(0, T12)).toEqual(['__name__=a 1@1000']);
    expect(await samples(0, { accountID: 7, projectID: 0 })).toEqual(['__name__=b 1@1000']);
    expect(await samples(0, T0)).toEqual([]);
    expect(counted).toEqual([['1:2', 'prometheus', 1], ['7:0', 'prometheus', 1]]);
  });

  it('answers 400 for a bad tenant, naming it, and stores nothing', async () => {
    const { post, samples } = await setup();
    for (const t of ['x', '-1', '1:2:3', '4294967296', '01']) {
      const res = await post(`/insert/${t}/prometheus/api/v1/import/prometheus`, 'a 1');
      expect(res.statusCode, t).toBe(400);
      expect(res.body).toContain(`invalid tenant ${JSON.stringify(t)}`);
    }
    expect(await samples(0, T0)).toEqual([]);
  });

  it('keeps the single node\'s answers: extra_label, gzip, 400 for bad lines, 413 over the size limit', async () => {
    const { post, samples } = await setup(1000);
    expect((await post('/insert/0/prometheus/api/v1/import/prometheus?extra_label=job=forced', gzipSync('up{job="mine"} 1 1000'), { 'content-encoding': 'gzip' })).statusCode).toBe(204);
    expect(await samples(1, T0)).toEqual(['__name__=up,job=forced 1@1000']);
    const bad = await post('/insert/0/prometheus/api/v1/import/prometheus', 'good 1 2000\nbad{ 2\n');
    expect(bad.statusCode).toBe(400);
    expect(bad.body).toMatch(/^1 line could not be parsed; first: line 2: /);
    const big = await post('/insert/0/prometheus/api/v1/import/prometheus', 'm 1\n'.repeat(400));
    expect(big.statusCode).toBe(413);
    expect(big.body).toContain('-maxInsertRequestSize');
  });

  it('answers 503 when no storage node takes the rows', async () => {
    const { post, nodes } = await setup();
    for (const n of nodes) n.addRows = async () => { throw new Error('disk full'); };
    const res = await post('/insert/0/prometheus/api/v1/import/prometheus', 'a 1 1000');
    expect(res.statusCode).toBe(503);
    expect(res.body).toBe('cannot store 1 of 1 rows: no storage node accepted them (s0: disk full; s1: disk full)');
  });
});
