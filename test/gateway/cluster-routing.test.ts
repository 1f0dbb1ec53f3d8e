// The gateway in -clusterMode in front of recording upstreams (one for reads, one for writes):
// every read and write API goes to the token's tenant path with the token's filters, whatever the
// client sends and however it spells it; nothing else is forwarded.
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { signToken, testKey } from '../../src/app/gateway/testdata/tokens.ts';
import { call, type Reply } from '../tsdb/client.ts';
import { killAll, makeTempDir, removeTempDirs } from '../tsdb/harness.ts';
import { bearer, type Gateway, startGateway, startUpstream, type Upstream, writeKeyFile } from './harness.ts';

const key = testKey('ES256');
let gw: Gateway;
let reads: Upstream;
let writes: Upstream;
let full: string;
let readOnly: string;
let writeOnly: string;
let noTenant: string;

const ACCESS = { tenant_id: { account_id: 12, project_id: 3 }, extra_labels: { team: 'a' }, extra_filters: ['{env="prod"}', '{env="dev",job="x"}'] };

beforeAll(async () => {
  const dir = await makeTempDir('gw-cluster');
  [reads, writes] = await Promise.all([startUpstream(), startUpstream()]);
  gw = await startGateway([
    '-enable.auth', '-clusterMode', `-read.url=${reads.url}/base/`, `-write.url=${writes.url}`, `-auth.publicKeyFiles=${await writeKeyFile(dir, 'k.pem', key.pem)}`,
  ]);
  [full, readOnly, writeOnly, noTenant] = await Promise.all([
    signToken(key, { access: ACCESS }), signToken(key, { access: { ...ACCESS, mode: 1 } }), signToken(key, { access: { ...ACCESS, mode: 2 } }),
    signToken(key, { access: JSON.stringify({ tenant_id: {} }) }),
  ]);
}, 60_000);

afterAll(async () => {
  await gw?.stop();
  await Promise.all([reads?.close(), writes?.close()]);
  await killAll();
  await removeTempDirs();
});

beforeEach(() => {
  reads.seen.length = 0;
  writes.seen.length = 0;
});

const send = (method: string, path: string, token: string, body?: string | Uint8Array, headers: Record<string, string> = {}): Promise<Reply> =>
  call(method, `${gw.base}${path}`, body, { ...bearer(token), ...headers });
const FORM = { 'content-type': 'application/x-www-form-urlencoded' };

describe('cluster routing', () => {
  it('sends every read API to <read.url>/select/<acc>:<proj>/prometheus/<path> with the token\'s filters', async () => {
    const f = async (path: string, want: string) => {
      reads.seen.length = 0;
      const r = await send('GET', `${path}?match[]=up&extra_label=team=b&extra_filters[]={env="other"}`, full);
      expect(r.status, `${path}: ${r.text}`).toBe(200);
      expect(reads.seen.map((s) => s.path)).toEqual([want]);
      const a = reads.seen[0]!.args;
      expect(a.getAll('match[]')).toEqual(['up']);
      expect(a.getAll('extra_label')).toEqual(['team=a']);
      expect(a.getAll('extra_filters[]')).toEqual(['{env="prod"}', '{env="dev",job="x"}']);
    };
    for (const p of ['query', 'query_range', 'series', 'series/count', 'labels', 'label/job/values', 'status/tsdb', 'export', 'export/csv', 'export/native']) {
      await f(`/api/v1/${p}`, `/base/select/12:3/prometheus/api/v1/${p}`);
      await f(`/prometheus/api/v1/${p}`, `/base/select/12:3/prometheus/api/v1/${p}`);
    }
    await f('/federate', '/base/select/12:3/prometheus/federate');
    await f('/graphite/metrics/find', '/base/select/12:3/graphite/metrics/find');
    expect(writes.seen).toEqual([]);
  });

  it('sends every write API to <write.url>/insert/<acc>:<proj>/<format>/<path> with extra_label only', async () => {
    const f = async (path: string, want: string) => {
      writes.seen.length = 0;
      const r = await send('POST', `${path}?extra_label=team=b&db=x`, full, 'm 1\n');
      expect(r.status, `${path}: ${r.text}`).toBe(200);
      expect(writes.seen.map((s) => [s.path, s.args.getAll('extra_label'), s.args.get('db'), s.body])).toEqual([[want, ['team=a'], 'x', 'm 1\n']]);
      expect(writes.seen[0]!.args.has('extra_filters[]')).toBe(false);
    };
    for (const p of ['write', 'import', 'import/csv', 'import/native', 'import/prometheus']) await f(`/api/v1/${p}`, `/insert/12:3/prometheus/api/v1/${p}`);
    await f('/prometheus/api/v1/import/prometheus', '/insert/12:3/prometheus/api/v1/import/prometheus');
    await f('/write', '/insert/12:3/influx/write');
    await f('/influx/write', '/insert/12:3/influx/write');
    await f('/api/v2/write', '/insert/12:3/influx/api/v2/write');
    await f('/agentfmt/api/v1/series', '/insert/12:3/agentfmt/api/v1/series');
    expect(reads.seen).toEqual([]);
  });

  it('routes a token without ids (svc_access as a JSON string) to tenant 0:0', async () => {
    expect((await send('GET', '/api/v1/query?query=up', noTenant)).status).toBe(200);
    expect(reads.seen[0]!.path).toBe('/base/select/0:0/prometheus/api/v1/query');
    expect(reads.seen[0]!.args.has('extra_label')).toBe(false);
  });

  it('replaces filters sent in the query string under any spelling of their names', async () => {
    const spellings = ['extra_label=team=b', 'extra%5Flabel=team=b', 'extra%5flabel=team=c', '%65xtra_label=team=d', 'extra_filters[]={a="1"}', 'extra_filters%5B%5D={a="2"}',
      'extra_filters%5b%5d={a="3"}', 'extra_filters={a="4"}', 'extra%5Ffilters={a="5"}', '%65%78%74%72%61%5f%66%69%6c%74%65%72%73%5b%5d={a="6"}'];
    const r = await send('GET', `/api/v1/query?query=up&${spellings.join('&')}`, full);
    expect(r.status).toBe(200);
    const s = reads.seen[0]!;
    expect([...s.args.keys()].sort()).toEqual(['extra_filters[]', 'extra_filters[]', 'extra_label', 'query']);
    expect(s.args.getAll('extra_label')).toEqual(['team=a']);
    expect(s.args.getAll('extra_filters[]')).toEqual(['{env="prod"}', '{env="dev",job="x"}']);
    // a name that cannot be decoded is refused rather than guessed at
    expect((await send('GET', '/api/v1/query?query=up&extra_la%zzbel=x', full)).status).toBe(400);
    expect(reads.seen).toHaveLength(1);
  });

  it('removes filters sent in a form-encoded body, streaming the rest', async () => {
    const body = `query=sum(up)&extra_label=team=b&extra%5Ffilters%5B%5D=%7Ba%3D%221%22%7D&step=15&extra_filters=x&${'pad='.repeat(1)}${'y'.repeat(200_000)}`;
    const r = await send('POST', '/api/v1/query_range?start=1', full, body, FORM);
    expect(r.status).toBe(200);
    const s = reads.seen[0]!;
    expect(s.body).toBe(`query=sum(up)&step=15&pad=${'y'.repeat(200_000)}`);
    expect(s.args.getAll('extra_label')).toEqual(['team=a']);
    expect(s.args.get('start')).toBe('1');
    expect(s.headers['content-length']).toBeUndefined();
    // without a form type or with a compressed body the gateway cannot check the args: refused
    expect((await send('POST', '/api/v1/query', full, 'query=up&extra_label=x=y', { 'content-type': 'text/plain' })).status).toBe(415);
    expect((await send('POST', '/api/v1/query', full, 'query=up', { 'content-type': 'multipart/form-data; boundary=x' })).status).toBe(415);
    expect((await send('POST', '/api/v1/query', full, gzipSync('extra_label=x=y'), { ...FORM, 'content-encoding': 'gzip' })).status).toBe(415);
    expect(reads.seen).toHaveLength(1);
  });

  it('keeps read and write tokens to their side (403, nothing forwarded)', async () => {
    const r1 = await send('POST', '/api/v1/import/prometheus', readOnly, 'm 1\n');
    expect(r1.status).toBe(403);
    expect(r1.text).toMatch(/for reads only/);
    const r2 = await send('GET', '/api/v1/query?query=up', writeOnly);
    expect(r2.status).toBe(403);
    expect((await send('GET', '/api/v1/query?query=up', readOnly)).status).toBe(200);
    expect((await send('POST', '/api/v1/write', writeOnly, 'x')).status).toBe(200);
    expect(reads.seen).toHaveLength(1);
    expect(writes.seen).toHaveLength(1);
  });

  it('does not reach admin, internal, snapshot or another tenant\'s paths, however encoded', async () => {
    const paths = [
      '/api/v1/admin/tsdb/delete_series?match[]=up', '/prometheus/api/v1/admin/tsdb/delete_series', '/internal/resetRollupResultCache', '/snapshot/create', '/snapshot/delete_all',
      '/select/5:0/prometheus/api/v1/query?query=up', '/select/5/prometheus/api/v1/query', '/insert/5:0/prometheus/api/v1/write', '/delete/5:0/prometheus/api/v1/admin/tsdb/delete_series',
      '/api/v1/query/../../select/5:0/prometheus/api/v1/query', '/api/v1/label/..%2f..%2f..%2fselect%2f5:0%2fprometheus%2fapi%2fv1%2fquery/values',
      '//select//5:0//prometheus//api/v1/query', '/%73elect/5:0/prometheus/api/v1/query', '/api/v1/%2e%2e/%2e%2e/internal/resetRollupResultCache',
      '/api/v1/label/job/values/../../../../snapshot/list', '/API/V1/QUERY', '/api/v1/query%00', '/api/v1/query/',
    ];
    for (const p of paths) {
      for (const method of ['GET', 'POST']) {
        const r = await send(method, p, full, method === 'POST' ? 'x' : undefined);
        expect([400, 404], `${method} ${p}: ${r.status} ${r.text}`).toContain(r.status);
      }
    }
    expect(reads.seen).toEqual([]);
    expect(writes.seen).toEqual([]);
  });

  it('does not forward the token, adds X-Forwarded-For, streams large bodies both ways', async () => {
    const big = Buffer.alloc(8 << 20, 'a');
    reads.handler = (_s, res) => {
      res.writeHead(200, { 'content-type': 'application/octet-stream' });
      res.end(big);
    };
    const r = await send('GET', '/api/v1/export', full);
    reads.handler = (_s, res) => void res.end('ok');
    expect(r.status).toBe(200);
    expect(r.body.equals(big)).toBe(true);
    expect(reads.seen[0]!.headers.authorization).toBeUndefined();
    expect(reads.seen[0]!.headers['x-forwarded-for']).toBe('127.0.0.1');
    const payload = 'm{a="b"} 1\n'.repeat(500_000);
    expect((await send('POST', '/api/v1/import/prometheus', full, payload)).status).toBe(200);
    expect(writes.seen[0]!.body.length).toBe(payload.length);
  });

  it('answers 502 when a target is down', async () => {
    const down = await startUpstream();
    await down.close();
    const g = await startGateway(['-enable.auth', '-clusterMode', `-read.url=${down.url}`, `-write.url=${down.url}`]);
    try {
      const r = await call('GET', `${g.base}/api/v1/query?query=up`, undefined, bearer(full));
      expect(r.status).toBe(502);
      expect(r.text).toMatch(/cannot proxy the request to -read.url/);
    } finally {
      await g.stop();
    }
  });
});
