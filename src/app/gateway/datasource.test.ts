import { once } from 'node:events';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import { type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createLogger } from '../../lib/logger/index.ts';
import { Datasource, type DatasourceOptions, parseDatasourceHeaders, queryUrl } from './datasource.ts';
import { UsagePoller } from './usage-poller.ts';

const servers: Server[] = [];
afterEach(() => {
  for (const s of servers.splice(0)) s.close();
});

interface Seen {
  readonly url: URL;
  readonly headers: IncomingMessage['headers'];
  readonly body: string;
}

async function server(handle: (s: Seen) => { status?: number; body: unknown }): Promise<{ url: string; seen: Seen[] }> {
  const seen: Seen[] = [];
  const s = createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => {
      const x = { url: new URL(req.url!, 'http://x'), headers: req.headers, body };
      seen.push(x);
      const r = handle(x);
      res.writeHead(r.status ?? 200, { 'content-type': 'application/json' });
      res.end(typeof r.body === 'string' ? r.body : JSON.stringify(r.body));
    });
  });
  servers.push(s);
  s.listen(0, '127.0.0.1');
  await once(s, 'listening');
  return { url: `http://127.0.0.1:${(s.address() as AddressInfo).port}`, seen };
}

const NOW = 1_700_000_003_700;
const base = (url: string, o: Partial<DatasourceOptions> = {}): DatasourceOptions => ({
  url, appendTypePrefix: false, disablePathAppend: false, auth: { kind: 'none' }, headers: [], lookbackMs: 0, queryStepMs: 300_000,
  queryTimeAlignment: true, roundDigits: undefined, evaluationIntervalMs: 5000, disableKeepAlive: false, maxIdleConnections: 100, timeoutMs: 5000,
  tls: { caFile: '', certFile: '', keyFile: '', serverName: '', insecureSkipVerify: false }, showURL: false, now: () => NOW, ...o,
});
const VECTOR = { status: 'success', data: { resultType: 'vector', result: [{ metric: { accountID: '1', projectID: '0' }, value: [1, '42'] }] } };
const { logger } = createLogger({ format: 'default', level: 'FATAL', jsonFields: {}, timezone: 'UTC', disableTimestamps: true, errorsPerSecondLimit: 0, warnsPerSecondLimit: 0, write: () => {} });

describe('queryUrl and parseDatasourceHeaders', () => {
  it('append the type prefix and the query path as the flags say', () => {
    const f = (url: string, appendTypePrefix: boolean, disablePathAppend: boolean, want: string) => expect(queryUrl({ url, appendTypePrefix, disablePathAppend }).toString()).toBe(want);
    f('http://s:8481/select/0', true, false, 'http://s:8481/select/0/prometheus/api/v1/query');
    f('http://s:8481/select/0/prometheus/', false, false, 'http://s:8481/select/0/prometheus/api/v1/query');
    f('http://s:8428', false, false, 'http://s:8428/api/v1/query');
    f('http://s:8428/custom/query?x=1', false, true, 'http://s:8428/custom/query?x=1');
  });

  it('reads h1:v1^^h2:v2', () => {
    expect(parseDatasourceHeaders('')).toEqual([]);
    expect(parseDatasourceHeaders('X-A: 1^^X-B:two:parts')).toEqual([{ name: 'X-A', value: '1' }, { name: 'X-B', value: 'two:parts' }]);
    expect(() => parseDatasourceHeaders('novalue')).toThrow(/-datasource.headers entry "novalue"/);
  });
});

describe('Datasource', () => {
  it('sends aligned time, lookback, step, round_digits, headers and Basic auth from a file', async () => {
    const srv = await server(() => ({ body: VECTOR }));
    const dir = mkdtempSync(join(tmpdir(), 'gw-ds-'));
    writeFileSync(join(dir, 'pw'), 'from-file\n');
    const ds = new Datasource(base(srv.url, {
      lookbackMs: 60_000, roundDigits: 2, headers: [{ name: 'X-Scope', value: 'a' }], auth: { kind: 'basic', username: 'u', password: { file: join(dir, 'pw') } },
    }));
    expect(await ds.query('up')).toEqual(VECTOR);
    const s = srv.seen[0]!;
    expect(s.url.pathname).toBe('/api/v1/query');
    expect(s.url.searchParams.get('query')).toBe('up');
    expect(s.url.searchParams.get('time')).toBe(String((1_700_000_000_000 - 60_000) / 1000));
    expect(s.url.searchParams.get('step')).toBe('300s');
    expect(s.url.searchParams.get('round_digits')).toBe('2');
    expect(s.headers['x-scope']).toBe('a');
    expect(s.headers.authorization).toBe(`Basic ${Buffer.from('u:from-file').toString('base64')}`);
    await ds.close();
  });

  it('sends a bearer token, and the evaluation interval as step when -datasource.queryStep is 0', async () => {
    const srv = await server(() => ({ body: VECTOR }));
    const ds = new Datasource(base(srv.url, { queryStepMs: 0, queryTimeAlignment: false, auth: { kind: 'bearer', token: { value: 't0k' } } }));
    await ds.query('up');
    expect(srv.seen[0]!.headers.authorization).toBe('Bearer t0k');
    expect(srv.seen[0]!.url.searchParams.get('step')).toBe('5s');
    expect(srv.seen[0]!.url.searchParams.get('time')).toBe(String(NOW / 1000));
    await ds.close();
  });

  it('gets an OAuth2 client-credentials token, falls back to credentials in the body, and reuses the token', async () => {
    const idp = await server((s) => {
      if (s.headers.authorization !== undefined) return { status: 401, body: { error: 'invalid_client' } };
      const f = new URLSearchParams(s.body);
      const ok = f.get('grant_type') === 'client_credentials' && f.get('client_id') === 'id' && f.get('client_secret') === 'sec' && f.get('scope') === 'a b';
      return ok ? { body: { access_token: 'AT', token_type: 'Bearer', expires_in: 3600 } } : { status: 400, body: { error: 'invalid_request' } };
    });
    const srv = await server((s) => (s.headers.authorization === 'Bearer AT' ? { body: VECTOR } : { status: 401, body: 'no' }));
    const ds = new Datasource(base(srv.url, { auth: { kind: 'oauth2', clientID: 'id', clientSecret: { value: 'sec' }, tokenUrl: `${idp.url}/token`, scopes: ['a', 'b'] } }));
    await ds.query('up');
    await ds.query('up');
    expect(srv.seen).toHaveLength(2);
    expect(idp.seen).toHaveLength(2); // the header attempt, then the body one; the token is then reused
    await ds.close();
  });

  it('names the datasource in errors only with -datasource.showURL', async () => {
    const srv = await server(() => ({ status: 503, body: 'overloaded' }));
    const hidden = new Datasource(base(srv.url));
    await expect(hidden.query('up')).rejects.toThrow(/cannot query -datasource.url: status 503: overloaded/);
    const shown = new Datasource(base(`http://u:pw@127.0.0.1:${new URL(srv.url).port}`, { showURL: true }));
    await expect(shown.query('up')).rejects.toThrow(/cannot query "http:\/\/u:secret@127\.0\.0\.1:\d+\/api\/v1\/query"/);
    await hidden.close();
    await shown.close();
  });
});

describe('UsagePoller', () => {
  it('keeps the last usage of a query that fails', async () => {
    let fail = false;
    const usages: unknown[] = [];
    const p = new UsagePoller({
      query: async (expr) => {
        if (fail && expr === 'b') throw new Error('down');
        return { status: 'success', data: { resultType: 'vector', result: [{ metric: { accountID: '1', projectID: '0' }, value: [1, expr === 'a' ? '1' : '2'] }] } };
      },
      queries: () => [{ key: 'queries/minute', expr: 'a' }, { key: 'rows_inserted/minute', expr: 'b' }],
      onUsage: (u) => usages.push(Object.fromEntries([...u].map(([t, m]) => [t, Object.fromEntries(m)]))),
      intervalMs: 1000, logger, now: () => NOW,
    });
    await p.refresh();
    fail = true;
    await p.refresh();
    expect(usages).toEqual([
      { '1:0': { 'queries/minute': 1, 'rows_inserted/minute': 2 } },
      { '1:0': { 'queries/minute': 1, 'rows_inserted/minute': 2 } },
    ]);
  });
});
