// The token checks from outside: each kind of bad token is answered 401 "Unauthorized", counted
// under its reason in gateway_auth_rejects_total and never forwarded.
import { createHmac } from 'node:crypto';
import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rawToken, signToken, testKey } from '../../src/app/gateway/testdata/tokens.ts';
import { call } from '../tsdb/client.ts';
import { killAll, makeTempDir, removeTempDirs } from '../tsdb/harness.ts';
import { type Gateway, metricValue, startGateway, startUpstream, type Upstream, writeKeyFile } from './harness.ts';

const fileKey = testKey('RS256');
const jwksKey = testKey('PS256');
const stranger = testKey('RS256');
let gw: Gateway;
let up: Upstream;
let jwks: Upstream;

beforeAll(async () => {
  const dir = await makeTempDir('gw-security');
  up = await startUpstream();
  jwks = await startUpstream((_s, res) => {
    res.setHeader('content-type', 'application/json');
    res.end(JSON.stringify({ keys: [jwksKey.jwk({ kid: 'k1', use: 'sig' })] }));
  });
  gw = await startGateway([
    '-enable.auth', `-read.url=${up.url}`, `-write.url=${up.url}`, `-auth.publicKeyFiles=${await writeKeyFile(dir, 'a.pem', fileKey.pem)}`,
    `-auth.jwksEndpoints=${jwks.url}/jwks`, '-auth.jwksMinRefreshInterval=1m', '-logInvalidAuthTokens',
  ]);
}, 60_000);

afterAll(async () => {
  await gw?.stop();
  await Promise.all([up?.close(), jwks?.close()]);
  await killAll();
  await removeTempDirs();
});

const now = () => Math.floor(Date.now() / 1000);

/** raw sends a request over a plain socket (for repeated and oversized headers) and returns the status. */
function raw(request: string): Promise<number> {
  const { port } = new URL(gw.base);
  return new Promise((resolve, reject) => {
    const s = connect(Number(port), '127.0.0.1', () => s.end(request));
    let data = '';
    s.on('data', (d) => (data += d.toString()));
    s.on('end', () => resolve(Number(/^HTTP\/1\.1 (\d+)/.exec(data)?.[1] ?? 0)));
    s.on('error', reject);
  });
}

describe('the security suite', () => {
  it('rejects every bad token with 401 Unauthorized, counts its reason and forwards nothing', async () => {
    const hsHeader = Buffer.from(JSON.stringify({ alg: 'HS256', typ: 'JWT' })).toString('base64url');
    const hsBody = Buffer.from(JSON.stringify({ exp: now() + 600, svc_access: { tenant_id: {} } })).toString('base64url');
    const good = await signToken(fileKey);
    const [h, , s] = good.split('.');
    const cases: Array<[string, string | undefined, string]> = [
      ['missing', undefined, 'missing_token'],
      ['empty bearer', 'Bearer ', 'missing_token'],
      ['basic credentials', 'Basic dTpw', 'malformed_token'],
      ['not a jwt', 'Bearer abc', 'malformed_token'],
      ['four parts', `Bearer ${good}.x`, 'malformed_token'],
      ['header not json', `Bearer ${rawToken('{', { exp: now() + 60 }, 'AAAA')}`, 'malformed_token'],
      ['payload not json', `Bearer ${h}.${Buffer.from('[').toString('base64url')}.${s}`, 'malformed_token'],
      ['alg none', `Bearer ${rawToken({ alg: 'none' }, { exp: now() + 600, svc_access: {} })}`, 'unsupported_alg'],
      ['alg None', `Bearer ${rawToken({ alg: 'None' }, { exp: now() + 600, svc_access: {} }, 'AAAA')}`, 'unsupported_alg'],
      ['HS256 with the public key as secret', `Bearer ${hsHeader}.${hsBody}.${createHmac('sha256', fileKey.pem).update(`${hsHeader}.${hsBody}`).digest('base64url')}`, 'unsupported_alg'],
      ['EdDSA', `Bearer ${rawToken({ alg: 'EdDSA' }, { exp: now() + 600, svc_access: {} }, 'AAAA')}`, 'unsupported_alg'],
      ['signed by a stranger', `Bearer ${await signToken(stranger)}`, 'bad_signature'],
      ['payload changed after signing', `Bearer ${h}.${Buffer.from(JSON.stringify({ exp: now() + 600, svc_access: { tenant_id: { account_id: 9 } } })).toString('base64url')}.${s}`, 'bad_signature'],
      ['signature cut', `Bearer ${good.slice(0, -4)}`, 'bad_signature'],
      ['expired', `Bearer ${await signToken(fileKey, { exp: now() - 5 })}`, 'expired'],
      ['unknown kid', `Bearer ${await signToken(stranger, { kid: 'nobody', alg: 'PS256' })}`, 'unknown_kid'],
      ['another unknown kid', `Bearer ${await signToken(stranger, { kid: 'nobody2', alg: 'PS256' })}`, 'unknown_kid'],
      ['oversized', `Bearer ${await signToken(fileKey, { payload: { pad: 'x'.repeat(9000) } })}`, 'token_too_large'],
      ['no exp', `Bearer ${await signToken(fileKey, { exp: null })}`, 'invalid_claims'],
      ['exp as a string', `Bearer ${await signToken(fileKey, { payload: { exp: String(now() + 600) } })}`, 'invalid_claims'],
      ['no svc_access', `Bearer ${await signToken(fileKey, { payload: { svc_access: undefined } })}`, 'invalid_claims'],
      ['svc_access a number', `Bearer ${await signToken(fileKey, { access: 5 })}`, 'invalid_claims'],
      ['account_id a string', `Bearer ${await signToken(fileKey, { access: { tenant_id: { account_id: '1' } } })}`, 'invalid_claims'],
      ['project_id negative', `Bearer ${await signToken(fileKey, { access: { tenant_id: { project_id: -1 } } })}`, 'invalid_claims'],
      ['account_id above uint32', `Bearer ${await signToken(fileKey, { access: { tenant_id: { account_id: 4294967296 } } })}`, 'invalid_claims'],
      ['mode 7', `Bearer ${await signToken(fileKey, { access: { mode: 7 } })}`, 'invalid_claims'],
      ['mode "1"', `Bearer ${await signToken(fileKey, { access: { mode: '1' } })}`, 'invalid_claims'],
      ['extra_labels a list', `Bearer ${await signToken(fileKey, { access: { extra_labels: ['a=b'] } })}`, 'invalid_claims'],
      ['extra_filters not selectors', `Bearer ${await signToken(fileKey, { access: { extra_filters: ['sum(up)'] } })}`, 'invalid_claims'],
      ['svc_access string not json', `Bearer ${await signToken(fileKey, { access: '{tenant_id:' })}`, 'invalid_claims'],
    ];
    const counts = new Map<string, number>();
    for (const [name, header, reason] of cases) {
      const r = await call('GET', `${gw.base}/api/v1/query?query=up`, undefined, header === undefined ? {} : { authorization: header });
      expect([r.status, r.text], name).toEqual([401, 'Unauthorized']);
      counts.set(reason, (counts.get(reason) ?? 0) + 1);
    }
    // repeated token headers: which one counts would depend on who reads them
    expect(await raw(`GET /api/v1/query HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${good}\r\nAuthorization: Bearer ${good}\r\nConnection: close\r\n\r\n`)).toBe(401);
    counts.set('malformed_token', counts.get('malformed_token')! + 1);
    // a header beyond Node's limit never reaches the gateway's code at all
    expect(await raw(`GET /api/v1/query HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${'a'.repeat(20_000)}\r\nConnection: close\r\n\r\n`)).toBe(431);
    expect(up.seen).toEqual([]);
    for (const [reason, n] of counts) expect(await metricValue(gw.base, `gateway_auth_rejects_total{reason="${reason}"}`), reason).toBe(n);
    // the reasons are logged (-logInvalidAuthTokens), the tokens never
    expect(gw.proc.output()).toMatch(/rejected a request from 127\.0\.0\.1 to "\/api\/v1\/query": unsupported_alg/);
    expect(gw.proc.output()).not.toContain(good.split('.')[2]!);
    // unknown kids fetch keys at most once per -auth.jwksMinRefreshInterval: here only the fetch at start
    expect(jwks.seen).toHaveLength(1);
  });

  it('accepts good tokens from every key source', async () => {
    const f = async (token: string) => expect((await call('GET', `${gw.base}/api/v1/query?query=up`, undefined, { authorization: `Bearer ${token}` })).status).toBe(200);
    await f(await signToken(fileKey));
    await f(await signToken(fileKey, { kid: 'unrelated' }));
    await f(await signToken(jwksKey, { kid: 'k1' }));
    expect(up.seen).toHaveLength(3);
  });
});
