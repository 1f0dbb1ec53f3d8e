// Key sources from outside: PEM files and inline keys together (each key counts), an OpenID
// Connect discovery endpoint whose keys rotate, and an endpoint that goes down.
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { signToken, testKey } from '../../src/app/gateway/testdata/tokens.ts';
import { call } from '../tsdb/client.ts';
import { killAll, makeTempDir, removeTempDirs } from '../tsdb/harness.ts';
import { bearer, metricValue, startGateway, startUpstream, type Upstream, writeKeyFile } from './harness.ts';

const closers: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  for (const c of closers.splice(0).reverse()) await c();
});
afterAll(async () => {
  await killAll();
  await removeTempDirs();
});

describe('key sources', () => {
  it('loads two files and one inline key as three keys, each verifying its tokens', async () => {
    const dir = await makeTempDir('gw-keys');
    const [a, b, c] = [testKey('RS384'), testKey('ES512'), testKey('PS512')];
    const up = await startUpstream();
    const gw = await startGateway([
      '-enable.auth', `-read.url=${up.url}`, `-auth.publicKeyFiles=${await writeKeyFile(dir, 'a.pem', a.pem)}`, `-auth.publicKeyFiles=${await writeKeyFile(dir, 'b.pem', b.pem)}`,
      `-auth.publicKeys=${c.pem.replaceAll('\n', '\\n')}`,
    ]);
    closers.push(() => up.close(), () => gw.stop());
    expect(gw.proc.output()).toMatch(/loaded 3 public keys \(2 from -auth.publicKeyFiles, 1 from -auth.publicKeys\)/);
    for (const k of [a, b, c]) expect((await call('GET', `${gw.base}/api/v1/labels`, undefined, bearer(await signToken(k)))).status).toBe(200);
    expect(await metricValue(gw.base, 'gateway_auth_keys{source="flags"}')).toBe(3);
  });

  it('refuses to start with a private key or an unreadable key file', async () => {
    const dir = await makeTempDir('gw-keys');
    const k = testKey('RS256');
    const pem = k.privateKey.export({ type: 'pkcs8', format: 'pem' }) as string;
    await expect(startGateway(['-enable.auth', '-read.url=http://127.0.0.1:1', `-auth.publicKeyFiles=${await writeKeyFile(dir, 'p.pem', pem)}`]))
      .rejects.toThrow(/holds a private key/);
    await expect(startGateway(['-enable.auth', '-read.url=http://127.0.0.1:1', `-auth.publicKeyFiles=${join(dir, 'missing.pem')}`]))
      .rejects.toThrow(/cannot read -auth.publicKeyFiles file/);
  });

  it('follows key rotation at a discovery endpoint and keeps the old keys while it is down', async () => {
    const [k1, k2] = [testKey('ES256'), testKey('RS256')];
    let keys: unknown[] = [k1.jwk({ kid: 'k1' })];
    let down = false;
    let idp: Upstream | undefined;
    idp = await startUpstream((s, res) => {
      if (down) return void res.writeHead(503).end('maintenance');
      res.setHeader('content-type', 'application/json');
      if (s.path === '/.well-known/openid-configuration') res.end(JSON.stringify({ issuer: idp!.url, jwks_uri: `${idp!.url}/keys` }));
      else res.end(JSON.stringify({ keys }));
    });
    const up = await startUpstream();
    const gw = await startGateway([
      '-enable.auth', `-read.url=${up.url}`, `-auth.oidcDiscoveryEndpoints=${idp.url}/.well-known/openid-configuration`, '-auth.jwksMinRefreshInterval=1s',
    ]);
    closers.push(() => idp.close(), () => up.close(), () => gw.stop());
    const status = async (token: string) => (await call('GET', `${gw.base}/api/v1/labels`, undefined, bearer(token))).status;
    expect(await status(await signToken(k1, { kid: 'k1' }))).toBe(200);
    // the provider adds k2: a token with kid k2 makes the gateway fetch the keys again
    keys = [k1.jwk({ kid: 'k1' }), k2.jwk({ kid: 'k2' })];
    await sleep(1100);
    expect(await status(await signToken(k2, { kid: 'k2' }))).toBe(200);
    // the provider goes down: both keys stay in use; a token with a new kid is refused
    down = true;
    await sleep(1100);
    expect(await status(await signToken(k2, { kid: 'k3' }))).toBe(401);
    expect(await status(await signToken(k1, { kid: 'k1' }))).toBe(200);
    expect(await status(await signToken(k2, { kid: 'k2' }))).toBe(200);
    expect(gw.proc.output()).toMatch(/cannot fetch verification keys from .*; keeping the 2 keys fetched before/);
    expect(await metricValue(gw.base, `gateway_auth_key_refreshes_total{endpoint="${idp.url}/.well-known/openid-configuration",result="error"}`)).toBeGreaterThanOrEqual(1);
  });
});
