// The gateway (single-node mode) in front of a real `tsdb`: tokens write only with their labels,
// read only what their filters allow through every read API, cannot widen their filters from any
// position or spelling of the args, and keep to their side (read / write).
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signToken, testKey } from '../../src/app/gateway/testdata/tokens.ts';
import { call, encodeParams, type Reply } from '../tsdb/client.ts';
import { clearOfDayEnd, killAll, makeTempDir, removeTempDirs, startTsdb, type Tsdb } from '../tsdb/harness.ts';
import { bearer, type Gateway, startGateway, writeKeyFile } from './harness.ts';

await clearOfDayEnd(120_000);
const key = testKey('RS256');
let tsdb: Tsdb;
let gw: Gateway;
const tokens: Record<string, string> = {};
const NOW = Date.now();

beforeAll(async () => {
  tsdb = await startTsdb(await makeTempDir('gw-single'));
  const dir = await makeTempDir('gw-single-keys');
  gw = await startGateway(['-enable.auth', `-read.url=${tsdb.base}`, `-write.url=${tsdb.base}`, `-auth.publicKeyFiles=${await writeKeyFile(dir, 'k.pem', key.pem)}`]);
  const t = (access: object) => signToken(key, { access });
  Object.assign(tokens, {
    writeA: await t({ mode: 2, extra_labels: { team: 'a' } }),
    writeB: await t({ mode: 2, extra_labels: { team: 'b' } }),
    readA: await t({ mode: 1, extra_labels: { team: 'a' } }),
    readB: await t({ mode: 1, extra_labels: { team: 'b' } }),
    readProd: await t({ mode: 1, extra_filters: ['{env="prod"}'] }),
    fullA: await t({ extra_labels: { team: 'a' } }),
  });
  const lines = (v: number) => [`gw_req_total{env="prod"} ${v} ${NOW - 60_000}`, `gw_req_total{env="dev"} ${v + 1} ${NOW - 60_000}`].join('\n');
  // writers try to write as the other team: the claim's label wins
  expect((await send('POST', '/api/v1/import/prometheus?extra_label=team=b', tokens.writeA!, lines(10))).status).toBe(204);
  expect((await send('POST', '/api/v1/import/prometheus', tokens.writeB!, lines(20), { 'content-type': 'application/x-www-form-urlencoded' })).status).toBe(204);
  expect((await send('POST', '/api/v1/import', tokens.writeB!, JSON.stringify({ metric: { __name__: 'gw_other', team: 'a' }, values: [5], timestamps: [NOW - 60_000] }))).status).toBe(204);
}, 60_000);

afterAll(async () => {
  await gw?.stop();
  await killAll();
  await removeTempDirs();
});

const send = (method: string, path: string, token: string, body?: string, headers: Record<string, string> = {}): Promise<Reply> =>
  call(method, `${gw.base}${path}`, body, { ...bearer(token), ...headers });

interface Vector { data: { result: Array<{ metric: Record<string, string>; value: [number, string] }> } }
const series = (r: Reply) => (JSON.parse(r.text) as Vector).data.result.map((s) => `${s.metric.team ?? '-'}/${s.metric.env ?? '-'}=${s.value[1]}`).sort();

async function query(token: string, q: string, extra = ''): Promise<string[]> {
  const r = await send('GET', `/api/v1/query?${encodeParams({ query: q, time: String(NOW / 1000) })}${extra}`, token);
  expect(r.status, r.text).toBe(200);
  return series(r);
}

describe('single-node gateway', () => {
  it('writes carry the writer\'s labels, whatever the client adds', async () => {
    const r = await call('GET', `${tsdb.base}/api/v1/query?${encodeParams({ query: 'gw_req_total', time: String(NOW / 1000) })}`);
    expect(series(r)).toEqual(['a/dev=11', 'a/prod=10', 'b/dev=21', 'b/prod=20']);
    const other = await call('GET', `${tsdb.base}/api/v1/query?${encodeParams({ query: 'gw_other', time: String(NOW / 1000) })}`);
    expect(series(other)).toEqual(['b/-=5']);
  });

  it('reads see only their team through every read API', async () => {
    expect(await query(tokens.readA!, 'gw_req_total')).toEqual(['a/dev=11', 'a/prod=10']);
    expect(await query(tokens.readB!, 'sum by (team, env) (gw_req_total)')).toEqual(['b/dev=21', 'b/prod=20']);
    expect(await query(tokens.readA!, 'gw_other')).toEqual([]);
    const range = await send('POST', '/api/v1/query_range', tokens.readA!, encodeParams({ query: 'gw_req_total', start: String((NOW - 120_000) / 1000), end: String(NOW / 1000), step: '60' }), { 'content-type': 'application/x-www-form-urlencoded' });
    expect(range.status, range.text).toBe(200);
    expect((JSON.parse(range.text) as { data: { result: Array<{ metric: { team: string } }> } }).data.result.map((s) => s.metric.team)).toEqual(['a', 'a']);
    const seriesList = await send('GET', `/api/v1/series?${encodeParams({ 'match[]': '{__name__=~"gw_.*"}' })}`, tokens.readA!);
    expect((JSON.parse(seriesList.text) as { data: Array<{ team: string }> }).data.map((s) => s.team)).toEqual(['a', 'a']);
    const count = await send('GET', `/api/v1/series/count?${encodeParams({ 'match[]': '{__name__=~"gw_.*"}' })}`, tokens.readA!);
    expect(count.status, count.text).toBe(200);
    const values = await send('GET', '/api/v1/label/team/values', tokens.readA!);
    expect((JSON.parse(values.text) as { data: string[] }).data).toEqual(['a']);
    const exported = await send('GET', `/api/v1/export?${encodeParams({ 'match[]': '{__name__=~"gw_.*"}' })}`, tokens.readB!);
    expect(exported.text.trim().split('\n').map((l) => (JSON.parse(l) as { metric: { team: string } }).metric.team)).toEqual(['b', 'b', 'b']);
    const csv = await send('GET', `/api/v1/export/csv?${encodeParams({ 'match[]': 'gw_req_total', format: 'team,env,__value__' })}`, tokens.readA!);
    expect(csv.text.trim().split('\n').sort()).toEqual(['a,dev,11', 'a,prod,10']);
    const fed = await send('GET', `/federate?${encodeParams({ 'match[]': 'gw_req_total' })}`, tokens.readB!);
    expect(fed.text.match(/team="b"/g)).toHaveLength(2);
    expect(fed.text).not.toMatch(/team="a"/);
  });

  it('filters cannot be widened by client args in any position or spelling', async () => {
    for (const w of ['&extra_label=team=b', '&extra%5Flabel=team=b', '&%65xtra_label=team=b']) expect(await query(tokens.readA!, 'gw_req_total', w), w).toEqual(['a/dev=11', 'a/prod=10']);
    // the token has no extra_filters, so the client's are kept: AND-ed with team=a they only narrow
    expect(await query(tokens.readA!, 'gw_req_total', '&extra_filters[]={team="b"}')).toEqual([]);
    expect(await query(tokens.readA!, 'gw_req_total', '&extra_filters={__name__=~".+"}&extra_filters[]={env="dev"}')).toEqual(['a/dev=11']);
    // in a form body, next to the query
    const body = `query=gw_req_total&time=${NOW / 1000}&extra_label=team=b&extra%5flabel=team%3Db&extra_filters=${encodeURIComponent('{env=~".+"}')}`;
    const viaBody = await send('POST', '/api/v1/query', tokens.readA!, body, { 'content-type': 'application/x-www-form-urlencoded' });
    expect(series(viaBody)).toEqual(['a/dev=11', 'a/prod=10']);
    // extra_filters of the token: the client's are replaced, not added as alternatives
    expect(await query(tokens.readProd!, 'gw_req_total')).toEqual(['a/prod=10', 'b/prod=20']);
    for (const w of ['&extra_filters[]={env="dev"}', '&extra_filters%5B%5D={env="dev"}', '&extra_filters={env="dev"}']) {
      expect(await query(tokens.readProd!, 'gw_req_total', w), w).toEqual(['a/prod=10', 'b/prod=20']);
    }
    const prodBody = await send('POST', '/api/v1/query', tokens.readProd!, `query=gw_req_total&time=${NOW / 1000}&extra_filters%5b%5d=${encodeURIComponent('{env="dev"}')}`, { 'content-type': 'application/x-www-form-urlencoded' });
    expect(series(prodBody)).toEqual(['a/prod=10', 'b/prod=20']);
    // a client's own narrower filter still narrows
    expect(await query(tokens.readProd!, 'gw_req_total', '&extra_label=team=a')).toEqual(['a/prod=10']);
  });

  it('keeps read tokens from writing and write tokens from reading; full tokens do both', async () => {
    expect((await send('POST', '/api/v1/import/prometheus', tokens.readA!, 'gw_x 1')).status).toBe(403);
    expect((await send('GET', '/api/v1/query?query=gw_req_total', tokens.writeA!)).status).toBe(403);
    expect((await send('POST', '/api/v1/import/prometheus', tokens.fullA!, `gw_full 1 ${NOW - 60_000}`)).status).toBe(204);
    expect(await query(tokens.fullA!, 'gw_full')).toEqual(['a/-=1']);
    expect((await send('POST', '/api/v1/admin/tsdb/delete_series?match[]=gw_full', tokens.fullA!)).status).toBe(404);
    expect(await query(tokens.fullA!, 'gw_full')).toEqual(['a/-=1']);
  });
});
