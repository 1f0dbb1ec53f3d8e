import Fastify, { type FastifyInstance } from 'fastify';
import { gzipSync } from 'node:zlib';
import { afterEach, describe, expect, it } from 'vitest';
import { common, jsonline } from '../../lib/protoparser/index.ts';
import { DEFAULT_TENANT, type Inserter, LimitExceededError, type MetricRow, type Tenant } from '../../lib/storageapi/index.ts';
import { type KeyedInserter } from './ingest.ts';
import { testInsertOptions } from './insert.test-helpers.ts';
import { registerInsertRoutes } from './routes.ts';

const show = (r: MetricRow) => `${JSON.stringify(r.labels)} ${r.value} @${r.timestamp}${r.rawKey === undefined ? '' : ' rawKey'}`;

/** RowInserter stores rows; rows with a "too_many" label value break a limit, as storage does. */
class RowInserter implements Inserter {
  rows: string[] = [];
  async addRows(_t: Tenant, rows: readonly MetricRow[]): Promise<void> {
    const ok = rows.filter((r) => !r.labels.some((l) => l.value === 'too_many'));
    this.rows.push(...ok.map(show));
    if (ok.length < rows.length) throw new LimitExceededError(`${rows.length - ok.length} rows have more than 30 labels`, 'maxLabelsPerTimeseries', 30);
  }
}

/** KeyedRowInserter also takes keyed batches, counting their rows. */
class KeyedRowInserter extends RowInserter implements KeyedInserter {
  keyedRows = 0;
  async addKeyedRows(t: Tenant, b: common.KeyedColumns): Promise<void> {
    this.keyedRows += b.length;
    await this.addRows(t, b.toRows());
  }
}

const apps: FastifyInstance[] = [];
afterEach(async () => {
  for (const a of apps.splice(0)) await a.close();
});

async function setup(inserter: Inserter) {
  const app = Fastify();
  await app.register(async (scope) => registerInsertRoutes(scope, testInsertOptions(inserter), DEFAULT_TENANT));
  apps.push(app);
  return async (url: string, payload: string | Buffer, headers: Record<string, string> = {}) => {
    const r = await app.inject({ method: 'POST', url, payload, headers: { 'content-type': 'application/json', ...headers } });
    return `${r.statusCode} ${r.body}`;
  };
}

describe('jsonLines', () => {
  it('stores keyed batches with the answers and rows of the row path', async () => {
    const plain = new RowInserter();
    const keyed = new KeyedRowInserter();
    const posts = [await setup(plain), await setup(keyed)];
    const f = async (url: string, body: string | Buffer, wantStatus: number, wantKeyedRows: number, headers?: Record<string, string>) => {
      const before = keyed.keyedRows;
      const answers = await Promise.all(posts.map((p) => p(url, body, headers)));
      expect(answers[1]).toBe(answers[0]);
      expect(answers[0]!.slice(0, 3)).toBe(String(wantStatus));
      expect(keyed.rows).toEqual(plain.rows);
      expect(keyed.keyedRows - before).toBe(wantKeyedRows);
    };
    const line = (name: string, ts: number[], extra = '') => jsonline.writeSeries([{ name: '__name__', value: name }, ...(extra ? [{ name: 'l', value: extra }] : [])], ts, ts.map((t) => t / 1000));
    const t0 = 1_700_000_000_000;
    await f('/api/v1/import', `${line('a', [t0, t0 + 1000])}${line('b', [t0])}`, 204, 3);
    // bad lines among good ones: 400 naming the first, the good lines stored
    await f('/api/v1/import', `${line('a', [t0 + 2000])}{"metric":{"__name__":"x"},"values":[1,2],"timestamps":[1]}\nnot json\n${line('c', [t0])}`, 400, 2);
    // timestamps storage cannot hold take the row path, which reports them
    await f('/api/v1/import', `${line('early', [-5])}${line('ok', [t0])}`, 400, 0);
    // a limit broken by some rows
    await f('/api/v1/import', `${line('ok', [t0 + 1])}${line('x', [t0], 'too_many')}`, 400, 2);
    // compressed bodies, the /prometheus prefix
    await f('/prometheus/api/v1/import', gzipSync(line('z', [t0, t0 + 1])), 204, 2, { 'content-encoding': 'gzip' });
    // extra labels take the row path
    await f('/api/v1/import?extra_label=job=forced', line('e', [t0]), 204, 0);
    expect(plain.rows).toContain('[{"name":"__name__","value":"e"},{"name":"job","value":"forced"}] 1700000000 @1700000000000');
  });
});
