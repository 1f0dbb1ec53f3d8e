// Gateway options served in process: -http.pathPrefix, no -enable.auth, a missing target, a
// custom -auth.httpHeader.
import { afterEach, describe, expect, it } from 'vitest';
import { parseTarget } from '../../src/app/gateway/proxy.ts';
import { signToken, testKey } from '../../src/app/gateway/testdata/tokens.ts';
import { call } from '../tsdb/client.ts';
import { startUpstream, type Upstream } from './harness.ts';
import { gatewayFlags, startInProcessGateway } from './in-process.ts';

const closers: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  for (const c of closers.splice(0).reverse()) await c();
});

async function upstream(): Promise<Upstream> {
  const up = await startUpstream();
  closers.push(() => up.close());
  return up;
}

describe('gateway options', () => {
  it('serves under -http.pathPrefix and strips it from forwarded paths', async () => {
    const up = await upstream();
    const key = testKey('RS256');
    const gw = await startInProcessGateway(gatewayFlags({ read: parseTarget('read.url', up.url), publicKeys: [key.pem] }), '/gw');
    closers.push(() => gw.stop());
    const token = await signToken(key);
    expect((await call('GET', `${gw.base}/gw/api/v1/query?query=up`, undefined, { authorization: `Bearer ${token}` })).status).toBe(200);
    expect(up.seen.map((s) => s.url)).toEqual(['/api/v1/query?query=up']);
    expect((await call('GET', `${gw.base}/gw/health`)).status).toBe(200);
  });

  it('without -enable.auth forwards as tenant 0:0 with full access and no filters', async () => {
    const up = await upstream();
    const gw = await startInProcessGateway(gatewayFlags({ enableAuth: false, clusterMode: true, read: parseTarget('read.url', up.url), write: parseTarget('write.url', up.url) }));
    closers.push(() => gw.stop());
    expect((await call('GET', `${gw.base}/api/v1/labels?extra_label=a=b`)).status).toBe(200);
    expect((await call('POST', `${gw.base}/api/v1/write`, 'x', { authorization: 'Basic dTpw' })).status).toBe(200);
    expect(up.seen.map((s) => [s.url, s.headers.authorization])).toEqual([['/select/0:0/prometheus/api/v1/labels?extra_label=a=b', undefined], ['/insert/0:0/prometheus/api/v1/write', 'Basic dTpw']]);
    expect(gw.logs.join('\n')).toMatch(/-enable.auth is not set: every request is forwarded as tenant 0:0 with full access/);
  });

  it('answers 404 naming the flag for a kind without a target, and reads the token from -auth.httpHeader', async () => {
    const up = await upstream();
    const key = testKey('ES256');
    const gw = await startInProcessGateway(gatewayFlags({ read: parseTarget('read.url', `${up.url}/prefix`), publicKeys: [key.pem], authHeader: 'x-token' }));
    closers.push(() => gw.stop());
    const token = await signToken(key);
    const w = await call('POST', `${gw.base}/api/v1/write`, 'x', { 'x-token': token });
    expect([w.status, w.text]).toEqual([404, 'the gateway does not forward writes: -write.url is not set']);
    expect((await call('GET', `${gw.base}/api/v1/labels`, undefined, { authorization: `Bearer ${token}` })).status).toBe(401);
    expect((await call('GET', `${gw.base}/api/v1/labels`, undefined, { 'x-token': token, authorization: 'Basic dTpw' })).status).toBe(200);
    expect(up.seen.map((s) => [s.url, s.headers['x-token'], s.headers.authorization])).toEqual([['/prefix/api/v1/labels', undefined, 'Basic dTpw']]);
  });

  it('warns when tokens are checked without any key', async () => {
    const up = await upstream();
    const gw = await startInProcessGateway(gatewayFlags({ read: parseTarget('read.url', up.url) }));
    closers.push(() => gw.stop());
    expect(gw.logs.join('\n')).toMatch(/token signatures are NOT checked/);
    const unsigned = await signToken(testKey('RS256'));
    expect((await call('GET', `${gw.base}/api/v1/labels`, undefined, { authorization: `Bearer ${unsigned}` })).status).toBe(200);
  });
});
