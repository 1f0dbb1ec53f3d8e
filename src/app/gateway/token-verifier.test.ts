import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { createLogger } from '../../lib/logger/index.ts';
import { KeyStore } from './key-store.ts';
import { parsePublicKeyPem } from './keys.ts';
import { RemoteKeySet } from './remote-keys.ts';
import { rawToken, signToken, testKey } from './testdata/tokens.ts';
import { TokenCache } from './token-cache.ts';
import { type RejectReason, tokenFromHeader, TokenVerifier } from './token-verifier.ts';

const NOW = Date.now();
const keyRs = testKey('RS256');
const keyEs = testKey('ES384');
const other = testKey('RS256');

function verifier(keys: KeyStore, now = () => NOW) {
  const cache = new TokenCache(100);
  return { v: new TokenVerifier({ keys, cache, now }), cache };
}

const staticStore = (...pems: string[]) => new KeyStore(pems.map((p, i) => parsePublicKeyPem(p, `key ${i}`)), []);
const { logger } = createLogger({ format: 'default', level: 'ERROR', jsonFields: {}, timezone: 'UTC', disableTimestamps: true, errorsPerSecondLimit: 0, warnsPerSecondLimit: 0, write: () => {} });

async function expectReject(v: TokenVerifier, token: string, reason: RejectReason) {
  const r = await v.verify(token);
  expect(r.ok ? 'ok' : r.reason).toBe(reason);
}

describe('tokenFromHeader', () => {
  it('takes the token after "Bearer " (any case) or the whole value', () => {
    expect(tokenFromHeader(undefined)).toBe('');
    expect(tokenFromHeader('Bearer abc')).toBe('abc');
    expect(tokenFromHeader('Bearer')).toBe('');
    expect(tokenFromHeader('bearer   abc ')).toBe('abc');
    expect(tokenFromHeader('abc')).toBe('abc');
    expect(tokenFromHeader('Basic dTpw')).toBe('Basic dTpw');
  });
});

describe('TokenVerifier', () => {
  it('accepts each allowed algorithm with a fitting key and caches the result until exp', async () => {
    for (const alg of ['RS256', 'RS384', 'RS512', 'PS256', 'PS384', 'PS512', 'ES256', 'ES384', 'ES512']) {
      const k = alg.startsWith('ES') ? testKey(alg) : keyRs;
      const { v, cache } = verifier(staticStore(other.pem, k.pem));
      const token = await signToken(k, { alg, access: { tenant_id: { account_id: 5 }, extra_labels: { a: 'b' } } });
      const r = await v.verify(token);
      expect(r.ok, alg).toBe(true);
      expect(v.cached(token)?.claims.tenant.accountID).toBe(5);
      expect(v.cached(token)?.readArgs.encoded).toBe('extra_label=a%3Db');
      expect(cache.size).toBe(1);
    }
  });

  it('rejects each kind of bad token with its reason', async () => {
    const { v, cache } = verifier(staticStore(keyRs.pem, keyEs.pem));
    await expectReject(v, '', 'missing_token');
    await expectReject(v, 'x'.repeat(9000), 'token_too_large');
    await expectReject(v, 'abc', 'malformed_token');
    await expectReject(v, 'a.b', 'malformed_token');
    await expectReject(v, 'a.b.c.d', 'malformed_token');
    await expectReject(v, rawToken('{', { exp: 1 }), 'malformed_token');
    await expectReject(v, rawToken({ alg: 'RS256' }, 'not json', 'AAAA'), 'malformed_token');
    await expectReject(v, rawToken({ alg: 'none' }, { exp: NOW / 1000 + 60, svc_access: {} }), 'unsupported_alg');
    await expectReject(v, rawToken({ alg: 'RS256', kid: 5 }, { exp: NOW / 1000 + 60, svc_access: {} }, 'AAAA'), 'malformed_token');
    // HS256 signed with the RSA public key (PEM text) as the HMAC secret: the classic key-confusion attack
    const header = Buffer.from(JSON.stringify({ alg: 'HS256' })).toString('base64url');
    const body = Buffer.from(JSON.stringify({ exp: Math.floor(NOW / 1000) + 60, svc_access: {} })).toString('base64url');
    const mac = createHmac('sha256', keyRs.pem).update(`${header}.${body}`).digest('base64url');
    await expectReject(v, `${header}.${body}.${mac}`, 'unsupported_alg');
    await expectReject(v, await signToken(keyRs, { alg: 'RS256', exp: Math.floor(NOW / 1000) - 1 }), 'expired');
    await expectReject(v, await signToken(keyRs, { exp: null }), 'invalid_claims');
    await expectReject(v, await signToken(keyRs, { access: { mode: 7 } }), 'invalid_claims');
    await expectReject(v, await signToken(keyRs, { payload: { nbf: Math.floor(NOW / 1000) + 600 } }), 'invalid_claims');
    await expectReject(v, await signToken(other), 'bad_signature');
    // a good token with its signature swapped for another key's
    const good = await signToken(keyRs);
    const forged = await signToken(other);
    await expectReject(v, `${good.slice(0, good.lastIndexOf('.'))}${forged.slice(forged.lastIndexOf('.'))}`, 'bad_signature');
    // a PS token whose payload was changed after signing
    const parts = good.split('.');
    await expectReject(v, `${parts[0]}.${Buffer.from(JSON.stringify({ exp: 9e9, svc_access: { tenant_id: { account_id: 1 } } })).toString('base64url')}.${parts[2]}`, 'bad_signature');
    expect(cache.size).toBe(0);
    // a kid no key has, without key-set endpoints: the PEM keys (which have no kid) are tried
    expect((await v.verify(await signToken(keyRs, { kid: 'nope' }))).ok).toBe(true);
    expect(cache.size).toBe(1);
  });

  it('drops a cached token when it expires', async () => {
    let now = NOW;
    const { v } = verifier(staticStore(keyRs.pem), () => now);
    const token = await signToken(keyRs, { exp: Math.floor(NOW / 1000) + 10 });
    expect((await v.verify(token)).ok).toBe(true);
    expect(v.cached(token)).toBeDefined();
    now += 10_000;
    expect(v.cached(token)).toBeUndefined();
    await expectReject(v, token, 'expired');
  });

  it('checks structure, algorithm and claims but not signatures without keys', async () => {
    const { v } = verifier(new KeyStore([], []));
    expect((await v.verify(await signToken(other))).ok).toBe(true);
    await expectReject(v, rawToken({ alg: 'none' }, { exp: NOW / 1000 + 60, svc_access: {} }), 'unsupported_alg');
    await expectReject(v, rawToken({ alg: 'HS256' }, { exp: NOW / 1000 + 60, svc_access: {} }, 'AAAA'), 'unsupported_alg');
    await expectReject(v, rawToken({ alg: 'RS256' }, { exp: NOW / 1000 - 1, svc_access: {} }, 'AAAA'), 'expired');
  });

  it('fetches keys on an unknown kid, rate-limited, and keeps the old keys while the endpoint is down', async () => {
    let now = NOW;
    let served: unknown = { keys: [keyRs.jwk({ kid: 'k1' })] };
    let fetches = 0;
    const remote = new RemoteKeySet({
      url: 'https://idp/jwks', discovery: false, now: () => now, refreshIntervalMs: 3_600_000, minRefreshIntervalMs: 10_000, logger, onChange: () => cache.clear(),
      fetchJson: async () => {
        fetches++;
        if (served instanceof Error) throw served;
        return served;
      },
    });
    const keys = new KeyStore([], [remote]);
    const cache = new TokenCache(100);
    const v = new TokenVerifier({ keys, cache, now: () => now });
    await keys.start();
    expect(fetches).toBe(1);
    expect((await v.verify(await signToken(keyRs, { kid: 'k1' }))).ok).toBe(true);
    // the identity provider adds k2: the first token with kid k2 makes the gateway fetch again
    served = { keys: [keyRs.jwk({ kid: 'k1' }), keyEs.jwk({ kid: 'k2' })] };
    now += 11_000;
    expect((await v.verify(await signToken(keyEs, { kid: 'k2' }))).ok).toBe(true);
    expect(fetches).toBe(2);
    // forged kids do not make it fetch more than once per min interval
    await expectReject(v, await signToken(other, { kid: 'x1' }), 'unknown_kid');
    await expectReject(v, await signToken(other, { kid: 'x2' }), 'unknown_kid');
    expect(fetches).toBe(2);
    // the endpoint goes down: the old keys stay in use
    served = new Error('connection refused');
    now += 11_000;
    await expectReject(v, await signToken(other, { kid: 'x3' }), 'unknown_kid');
    expect(fetches).toBe(3);
    expect((await v.verify(await signToken(keyEs, { kid: 'k2' }))).ok).toBe(true);
    // k1 removed: its tokens, even cached ones, stop verifying
    const t1 = await signToken(keyRs, { kid: 'k1' });
    expect((await v.verify(t1)).ok).toBe(true);
    served = { keys: [keyEs.jwk({ kid: 'k2' })] };
    await remote.refresh();
    expect(v.cached(t1)).toBeUndefined();
    await expectReject(v, t1, 'unknown_kid');
    remote.stop();
  });

  it('reads keys from an OpenID Connect discovery document', async () => {
    const docs: Record<string, unknown> = {
      'https://idp/.well-known/openid-configuration': { issuer: 'https://idp', jwks_uri: 'https://idp/keys' },
      'https://idp/keys': { keys: [keyEs.jwk({ kid: 'e' })] },
    };
    const remote = new RemoteKeySet({
      url: 'https://idp/.well-known/openid-configuration', discovery: true, now: () => NOW, refreshIntervalMs: 60_000, minRefreshIntervalMs: 1000, logger, onChange: () => {},
      fetchJson: async (u) => docs[u],
    });
    const keys = new KeyStore([], [remote]);
    await keys.start();
    const { v } = verifier(keys);
    expect((await v.verify(await signToken(keyEs, { kid: 'e' }))).ok).toBe(true);
    remote.stop();
  });
});
