// The first request of each kind right after a start (issue 18 item 4: what a start loads and how
// it resolves its modules must not change an answer or lose a request): a fresh tsdb gets every
// kind of write, read and service request at once, as soon as it logs its address, and each first
// answer is the one a warmed-up server gives.

import { connect } from 'node:net';
import { afterAll, describe, expect, it } from 'vitest';
import { native, remotewrite } from '../../src/lib/protoparser/index.ts';
import { get, getJson, post } from './client.ts';
import { killAll, makeTempDir, removeTempDirs, startTsdb } from './harness.ts';

const T = 1_700_000_000;
const TMS = T * 1000;

afterAll(async () => {
  await killAll();
  await removeTempDirs();
});

const sendTcp = (addr: string, text: string) => new Promise<void>((resolve, reject) => {
  const i = addr.lastIndexOf(':');
  const s = connect(Number(addr.slice(i + 1)), addr.slice(0, i), () => s.end(text));
  s.on('close', () => resolve());
  s.on('error', reject);
});

describe('tsdb right after start', () => {
  it('answers the first request of every kind', async () => {
    const tsdb = await startTsdb(await makeTempDir('startup'), ['-retentionPeriod=100y', '-graphiteListenAddr=127.0.0.1:0', '-opentsdbHTTPListenAddr=127.0.0.1:0']);
    const b = tsdb.base;
    const rw = remotewrite.encodeWriteRequestSnappy([{ labels: [{ name: '__name__', value: 'first_rw' }], timestamps: [TMS], values: [2] }]);
    // Every first request at once: writes of each format, reads, and the service pages.
    const [prom, rwr, influx, jsonl, csv, otsdb, query, range, exp, meta, metrics, flags, health] = await Promise.all([
      post(`${b}/api/v1/import/prometheus`, `first_prom{k="v"} 1 ${TMS}\n`),
      post(`${b}/api/v1/write`, rw, { 'content-type': 'application/x-protobuf', 'content-encoding': 'snappy' }),
      post(`${b}/write?precision=s`, `first_influx,k=v f=3 ${T}\n`),
      post(`${b}/api/v1/import`, `{"metric":{"__name__":"first_jsonl"},"values":[4],"timestamps":[${TMS}]}\n`),
      post(`${b}/api/v1/import/csv?format=2:metric:first_csv,1:time:unix_s`, `${T},5\n`),
      post(`http://${tsdb.receivers.opentsdbHTTP}/api/put`, JSON.stringify({ metric: 'first_otsdb', timestamp: T, value: 6, tags: { k: 'v' } })),
      getJson<{ status: string; data: { result: unknown[] } }>(`${b}/api/v1/query`, { query: '1+1' }),
      getJson<{ status: string; data: { result: unknown[] } }>(`${b}/api/v1/query_range`, { query: 'vector(1)', start: String(T), end: String(T + 60), step: '30' }),
      get(`${b}/api/v1/export?match[]={__name__=~"nothing_yet"}`),
      getJson(`${b}/api/v1/metadata`),
      get(`${b}/metrics`),
      get(`${b}/flags`),
      get(`${b}/health`),
      sendTcp(tsdb.receivers.graphite!, `first.graphite 7 ${T}\n`),
    ]);
    expect([prom.status, rwr.status, influx.status, jsonl.status, csv.status, otsdb.status]).toEqual([204, 204, 204, 204, 204, 204]);
    expect(query).toMatchObject({ status: 'success', data: { resultType: 'scalar', result: [expect.any(Number), '2'] } });
    expect(range.data.result).toHaveLength(1);
    expect(exp.status).toBe(200);
    expect(exp.text).toBe('');
    expect(meta.status).toBe('success');
    expect(metrics.text).toMatch(/^tsdb_rows_inserted_total|\ntsdb_/);
    expect(flags.text).toContain('-graphiteListenAddr="127.0.0.1:0"');
    expect(health.status).toBe(200);

    // Every row written by those first requests is stored (the TCP receiver's asynchronously).
    await post(`${b}/internal/force_flush`);
    const want = { first_prom: 1, first_rw: 2, first_influx_f: 3, first_jsonl: 4, first_csv: 5, first_otsdb: 6, 'first.graphite': 7 };
    const deadline = Date.now() + 10_000;
    let got: Record<string, number> = {};
    while (Date.now() < deadline) {
      const body = (await get(`${b}/api/v1/export/native?match[]={__name__=~"first.*"}&start=0`)).body;
      got = Object.fromEntries(native.parse(body).map((s) => [s.labels.find((l) => l.name === '__name__')!.value, s.values[0]!]));
      if (Object.keys(got).length === Object.keys(want).length) break;
      await new Promise((r) => setTimeout(r, 100));
    }
    expect(got).toEqual(want);
  }, 60_000);
});
