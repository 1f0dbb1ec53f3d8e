import Fastify, { type FastifyInstance } from 'fastify';
import { gzipSync } from 'node:zlib';
import { afterEach, describe, expect, it } from 'vitest';
import { native, remotewrite } from '../../lib/protoparser/index.ts';
import { DEFAULT_TENANT, type Inserter, LimitExceededError, type MetricRow, type Tenant } from '../../lib/storageapi/index.ts';
import { NOW, testInsertOptions } from './insert.test-helpers.ts';
import { registerInsertRoutes } from './routes.ts';

/** RecordingInserter stores rows in memory; rows whose name is "too_many" break a limit, like storage does. */
class RecordingInserter implements Inserter {
  rows: MetricRow[] = [];
  async addRows(_tenant: Tenant, rows: readonly MetricRow[]): Promise<void> {
    const ok = rows.filter((r) => !r.labels.some((l) => l.value === 'too_many'));
    this.rows.push(...ok);
    if (ok.length < rows.length) throw new LimitExceededError(`${rows.length - ok.length} rows have more than 30 labels`, 'maxLabelsPerTimeseries', 30);
  }
}

const apps: FastifyInstance[] = [];
afterEach(async () => {
  for (const a of apps.splice(0)) await a.close();
});


async function setup(maxRequestBytes?: number) {
  const inserter = new RecordingInserter();
  const app = Fastify();
  await app.register(async (scope) => registerInsertRoutes(scope, testInsertOptions(inserter, maxRequestBytes), DEFAULT_TENANT));
  apps.push(app);
  const post = (url: string, payload: string | Buffer, headers: Record<string, string> = {}) => app.inject({ method: 'POST', url, payload, headers });
  return { app, inserter, post };
}

const labelsOf = (r: MetricRow) => Object.fromEntries(r.labels.map((l) => [l.name, l.value]));

describe('ingestion routes', () => {
  it('stores every format and answers 204', async () => {
    const { inserter, post } = await setup();
    const f = async (url: string, body: string | Buffer, headers?: Record<string, string>) => {
      const before = inserter.rows.length;
      const res = await post(url, body, headers);
      expect(res.statusCode, `${url}: ${res.body}`).toBe(204);
      return inserter.rows.slice(before);
    };
    expect((await f('/api/v1/import/prometheus', 'up{job="a"} 1 1700000000000\nup{job="b"} 2\n')).map((r) => [labelsOf(r).job, r.value, r.timestamp]))
      .toEqual([['a', 1, 1_700_000_000_000], ['b', 2, NOW]]);
    expect(await f('/prometheus/api/v1/import/prometheus', 'x 1')).toHaveLength(1);
    const rw = remotewrite.encodeWriteRequestSnappy([{ labels: [{ name: '__name__', value: 'rw' }], timestamps: [5], values: new Float64Array([6]) }]);
    expect((await f('/api/v1/write', rw, { 'content-encoding': 'snappy', 'content-type': 'application/x-protobuf' }))[0]).toMatchObject({ timestamp: 5, value: 6 });
    expect((await f('/write?db=mydb&precision=s', 'cpu,host=h usage=3 1700000000'))[0]).toMatchObject({ timestamp: 1_700_000_000_000, value: 3 });
    expect(labelsOf((await f('/influx/write?db=mydb', 'cpu usage=3'))[0]!)).toEqual({ __name__: 'cpu_usage', db: 'mydb' });
    expect(await f('/influx/api/v2/write?bucket=b', 'cpu usage=1i')).toHaveLength(1);
    expect(await f('/api/v1/import', '{"metric":{"__name__":"j"},"values":[1,2],"timestamps":[1,2]}', { 'content-type': 'application/json' })).toHaveLength(2);
    expect((await f('/api/v1/import/csv?format=1:metric:temp,2:label:city,3:time:unix_s', '21.5,Paris,1700000000\n'))[0]).toMatchObject({ value: 21.5, timestamp: 1_700_000_000_000 });
    const nat = Buffer.concat([native.header(), native.encodeSeries([{ name: '__name__', value: 'n' }], new Float64Array([1, 2]), new Float64Array([3, 4]))]);
    expect(await f('/api/v1/import/native', nat)).toHaveLength(2);
    const series = JSON.stringify({ series: [{ metric: 'dd.load', points: [[1_700_000_000, 0.5]], tags: ['env:prod'], host: 'h1' }] });
    expect(labelsOf((await f('/agentfmt/api/v1/series', series, { 'content-type': 'application/json' }))[0]!)).toMatchObject({ __name__: 'dd.load', env: 'prod' });
  });

  it('stores the valid lines of a partly bad body and answers 400 naming the count and first bad line', async () => {
    const { inserter, post } = await setup();
    const res = await post('/api/v1/import/prometheus', 'good 1\nbad{ 2\ngood2 3\nalso bad\n');
    expect(res.statusCode).toBe(400);
    expect(res.body).toMatch(/^2 lines could not be parsed; first: line 2: /);
    expect(inserter.rows.map((r) => labelsOf(r).__name__)).toEqual(['good', 'good2']);
  });

  it('answers 400 for rows with a timestamp storage cannot hold, and still stores every later batch', async () => {
    const { inserter, post } = await setup();
    const good = Array.from({ length: 12_000 }, (_, i) => `later{i="${i}"} 1 ${1_700_000_000_000 + i}`).join('\n');
    const res = await post('/api/v1/import/prometheus', `early -1 -5\nfar 1 253402300800000\n${good}\n`);
    expect(res.statusCode).toBe(400);
    expect(res.body).toBe('2 rows were rejected; first: timestamp -5 of early{} is not a time between 1970 and 9999 in milliseconds');
    expect(inserter.rows).toHaveLength(12_000);
  });

  it('adds extra_label to every row, overriding the sender', async () => {
    const { inserter, post } = await setup();
    await post('/api/v1/import/prometheus?extra_label=job=forced&extra_label=team=t', 'up{job="mine"} 1');
    expect(labelsOf(inserter.rows[0]!)).toEqual({ __name__: 'up', job: 'forced', team: 't' });
    expect((await post('/api/v1/import/prometheus?extra_label=oops', 'up 1')).statusCode).toBe(400);
  });

  it('accepts gzip and zstd bodies and refuses unknown encodings with 415', async () => {
    const { inserter, post } = await setup();
    expect((await post('/api/v1/import/prometheus', gzipSync('z 1'), { 'content-encoding': 'gzip' })).statusCode).toBe(204);
    expect(inserter.rows).toHaveLength(1);
    expect((await post('/api/v1/import/prometheus', 'z 1', { 'content-encoding': 'br' })).statusCode).toBe(415);
  });

  it('answers 413 over -maxInsertRequestSize, by Content-Length and after decompression', async () => {
    const { post } = await setup(1000);
    const big = 'm 1\n'.repeat(400);
    const r1 = await post('/api/v1/import/prometheus', big);
    expect(r1.statusCode).toBe(413);
    expect(r1.body).toContain('-maxInsertRequestSize');
    expect((await post('/api/v1/import/prometheus', gzipSync(big), { 'content-encoding': 'gzip' })).statusCode).toBe(413);
  });

  it('answers 400 naming the flag when storage rejects rows over a limit, keeping the rest', async () => {
    const { inserter, post } = await setup();
    const res = await post('/api/v1/import/prometheus', 'ok 1\nx{l="too_many"} 2\nok2 3');
    expect(res.statusCode).toBe(400);
    expect(res.body).toContain('-maxLabelsPerTimeseries');
    expect(inserter.rows).toHaveLength(2);
  });

  it('rejects bad CSV format and influx precision args with 400', async () => {
    const { post } = await setup();
    expect((await post('/api/v1/import/csv', '1,2')).body).toContain('missing "format" arg');
    expect((await post('/api/v1/import/csv?format=1:nope:x', '1,2')).statusCode).toBe(400);
    expect((await post('/write?precision=fortnight', 'cpu v=1')).body).toContain('invalid "precision" arg');
  });

  it('answers what agents and Telegraf probe before writing', async () => {
    const { app } = await setup();
    expect((await app.inject({ method: 'GET', url: '/agentfmt/api/v1/validate' })).json()).toEqual({ valid: true });
    expect((await app.inject({ method: 'GET', url: '/ping' })).statusCode).toBe(204);
    expect((await app.inject({ method: 'POST', url: '/query', payload: 'q=CREATE DATABASE x', headers: { 'content-type': 'application/x-www-form-urlencoded' } })).json()).toHaveProperty('results');
  });
});
