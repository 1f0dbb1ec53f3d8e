import { connect } from 'node:net';
import { request } from 'undici';
import { afterEach, describe, expect, it } from 'vitest';
import { DEFAULT_TENANT, type Inserter, type MetricRow, type Tenant } from '../../lib/storageapi/index.ts';
import { startReceivers, type Receivers } from './receivers.ts';
import { testInsertOptions } from './insert.test-helpers.ts';

class Recorder implements Inserter {
  rows: MetricRow[] = [];
  async addRows(_t: Tenant, rows: readonly MetricRow[]) {
    this.rows.push(...rows);
  }
}

const started: Receivers[] = [];
afterEach(async () => {
  for (const r of started.splice(0)) await r.close();
});

async function until(cond: () => boolean): Promise<void> {
  for (let i = 0; i < 200 && !cond(); i++) await new Promise((r) => setTimeout(r, 10));
  expect(cond()).toBe(true);
}

describe('network receivers', () => {
  it('stores Graphite and OpenTSDB telnet lines as they arrive on an open connection', async () => {
    const rec = new Recorder();
    const r = await startReceivers({ graphite: '127.0.0.1:0', opentsdb: '127.0.0.1:0', opentsdbHTTP: '' }, testInsertOptions(rec), DEFAULT_TENANT, false);
    started.push(r);
    const port = (a: string | undefined) => Number(a!.split(':').at(-1));
    const g = connect(port(r.addresses.graphite), '127.0.0.1');
    g.write('foo.bar;env=prod 42 1700000000\n');
    await until(() => rec.rows.length === 1);
    expect(rec.rows[0]).toMatchObject({ value: 42, timestamp: 1_700_000_000_000 });
    g.write('this is not graphite\nfoo.baz 1 1700000001\n');
    await until(() => rec.rows.length === 2);
    g.end();
    const t = connect(port(r.addresses.opentsdb), '127.0.0.1');
    t.end('put sys.cpu 1700000000 7 host=a\n');
    await until(() => rec.rows.length === 3);
    expect(rec.rows[2]!.labels).toEqual([{ name: '__name__', value: 'sys.cpu' }, { name: 'host', value: 'a' }]);
  });

  it('serves POST /api/put for OpenTSDB HTTP clients', async () => {
    const rec = new Recorder();
    const r = await startReceivers({ graphite: '', opentsdb: '', opentsdbHTTP: '127.0.0.1:0' }, testInsertOptions(rec), DEFAULT_TENANT, false);
    started.push(r);
    const base = `http://${r.addresses.opentsdbHTTP}`;
    const ok = await request(`${base}/api/put`, { method: 'POST', body: JSON.stringify([{ metric: 'm', value: 1, timestamp: 1700000000, tags: { a: 'b' } }]) });
    expect(ok.statusCode).toBe(204);
    await ok.body.dump();
    expect(rec.rows).toHaveLength(1);
    const bad = await request(`${base}/api/put`, { method: 'POST', body: '{not json' });
    expect(bad.statusCode).toBe(400);
    await bad.body.dump();
    expect((await request(`${base}/other`)).statusCode).toBe(404);
  });
});
