import Fastify, { type FastifyInstance } from 'fastify';
import { gzipSync } from 'node:zlib';
import { afterEach, describe, expect, it } from 'vitest';
import { common, remotewrite } from '../../lib/protoparser/index.ts';
import { DEFAULT_TENANT, type Inserter, LimitExceededError, type MetricRow, type Tenant } from '../../lib/storageapi/index.ts';
import { type KeyedInserter } from './ingest.ts';
import { KeyDictionaries } from '../../lib/keyedparse/index.ts';
import { testInsertOptions } from './insert.test-helpers.ts';
import { registerInsertRoutes } from './routes.ts';

// The keyed path (series-key dictionary plus an inserter that takes keyed batches) must answer and
// store exactly what the row path does; these bodies cover the cases where they could differ.

const tooMany = (labels: MetricRow['labels']) => labels.some((l) => l.value === 'too_many');

/** RowInserter stores rows; rows with a "too_many" label value break a limit, as storage does. */
class RowInserter implements Inserter {
  rows: string[] = [];
  async addRows(_t: Tenant, rows: readonly MetricRow[]): Promise<void> {
    const ok = rows.filter((r) => !tooMany(r.labels));
    this.rows.push(...ok.map(show));
    if (ok.length < rows.length) throw new LimitExceededError(`${rows.length - ok.length} rows have more than 30 labels`, 'maxLabelsPerTimeseries', 30);
  }
}

/** KeyedRowInserter is RowInserter that also takes keyed batches, counting them. */
class KeyedRowInserter extends RowInserter implements KeyedInserter {
  keyedBatches = 0;
  async addKeyedRows(t: Tenant, b: common.KeyedColumns): Promise<void> {
    this.keyedBatches++;
    await this.addRows(t, b.toRows());
  }
}

const show = (r: MetricRow) => `${JSON.stringify(r.labels)} ${r.value} @${r.timestamp}`;

const apps: FastifyInstance[] = [];
afterEach(async () => {
  for (const a of apps.splice(0)) await a.close();
});

async function setup(inserter: Inserter, keys?: common.SeriesKeyDictionary) {
  const app = Fastify();
  const o = { ...testInsertOptions(inserter), ...(keys ? { prometheusKeys: keys, remoteWriteKeys: new common.SeriesKeyDictionary(keys.maxBytes), influxKeys: new KeyDictionaries(keys.maxBytes, 2) } : {}) };
  await app.register(async (scope) => registerInsertRoutes(scope, o, DEFAULT_TENANT));
  apps.push(app);
  return async (url: string, payload: string | Buffer, headers: Record<string, string> = {}) => {
    const r = await app.inject({ method: 'POST', url, payload, headers });
    return `${r.statusCode} ${r.body}`;
  };
}

describe('Prometheus text through the keyed path', () => {
  it('answers and stores what the row path does', async () => {
    const plain = new RowInserter();
    const keyed = new KeyedRowInserter();
    const keysOnly = new RowInserter(); // a dictionary but an inserter without a keyed path
    const posts = [await setup(plain), await setup(keyed, new common.SeriesKeyDictionary(1 << 20)), await setup(keysOnly, new common.SeriesKeyDictionary(300))];
    const f = async (url: string, body: string | Buffer, headers?: Record<string, string>) => {
      const answers = await Promise.all(posts.map((p) => p(url, body, headers)));
      expect(answers[1]).toBe(answers[0]);
      expect(answers[2]).toBe(answers[0]);
      expect(keyed.rows).toEqual(plain.rows);
      expect(keysOnly.rows).toEqual(plain.rows);
    };
    // new series, the same again (known and predicted), default timestamps
    await f('/api/v1/import/prometheus', 'up{job="a"} 1 1700000000000\nup{job="b"} 2\n');
    await f('/api/v1/import/prometheus', 'up{job="a"} 3 1700000001000\nup{job="b"} 4\n');
    // bad lines among good ones
    await f('/api/v1/import/prometheus', 'good 1\nbad{ 2\ngood2 3\nalso bad\nup{job="a"} x\n');
    // timestamps storage cannot hold: 400, and every later batch still stored
    const many = Array.from({ length: 12_000 }, (_, i) => `later{i="${i % 50}"} 1 ${1_700_000_000_000 + i}`).join('\n');
    await f('/api/v1/import/prometheus', `early -1 -5\nfar 1 253402300800000\n${many}\n`);
    // a limit broken by some rows
    await f('/api/v1/import/prometheus', 'ok 1\nx{l="too_many"} 2\nok2 3');
    // extra labels take the row path
    await f('/api/v1/import/prometheus?extra_label=job=forced', 'up{job="a"} 5 1700000002000');
    // compressed bodies
    await f('/api/v1/import/prometheus', gzipSync('up{job="b"} 6 1700000003000\nz 1'), { 'content-encoding': 'gzip' });
    // remote write: new and known series, a series with duplicate labels, a limit, a bad timestamp
    const rw = (series: { labels: Record<string, string>; ts: number[] }[]) => remotewrite.encodeWriteRequestSnappy(series.map((x) => ({
      labels: Object.entries(x.labels).map(([name, value]) => ({ name, value })), timestamps: x.ts, values: Float64Array.from(x.ts, (t) => t / 1000),
    })));
    const rwHeaders = { 'content-encoding': 'snappy', 'content-type': 'application/x-protobuf' };
    const two = [{ labels: { __name__: 'rw', job: 'a' }, ts: [1_700_000_000_000, 1_700_000_001_000] }, { labels: { __name__: 'rw', job: 'b' }, ts: [1_700_000_000_000] }];
    await f('/api/v1/write', rw(two), rwHeaders);
    await f('/api/v1/write', rw(two), rwHeaders);
    await f('/api/v1/write', rw([...two, { labels: { __name__: 'rw', l: 'too_many' }, ts: [1_700_000_000_000] }]), rwHeaders);
    await f('/api/v1/write', rw([{ labels: { __name__: 'rw', job: 'a' }, ts: [-5, 1_700_000_002_000] }]), rwHeaders);
    await f('/api/v1/write?extra_label=job=x', rw(two), rwHeaders);
    // influx: per db (a third db is past the two dictionaries and takes the row path), precision, bad lines
    for (const db of ['a', 'b', 'c', 'a']) await f(`/write?db=${db}&precision=s`, 'cpu,host=h usage=3,idle=2i 1700000000\nmem free=1u 1700000001\nbad line\n');
    await f('/influx/api/v2/write?bucket=a&precision=ms', 'cpu,host=h usage=4 1700000002000\nnegative v=1 -5');
    expect(keyed.keyedBatches).toBeGreaterThan(0);
  });
});
