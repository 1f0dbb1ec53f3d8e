import { generateKeyPairSync } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { fits, KeyError, keysFromJwks, parsePublicKeyPem } from './keys.ts';

const rsa = generateKeyPairSync('rsa', { modulusLength: 2048 });
const ec256 = generateKeyPairSync('ec', { namedCurve: 'P-256' });
const ec384 = generateKeyPairSync('ec', { namedCurve: 'P-384' });
const spki = (k: typeof rsa) => k.publicKey.export({ type: 'spki', format: 'pem' }) as string;

describe('parsePublicKeyPem', () => {
  it('reads SPKI, PKCS#1 and one-line or \\n-escaped PEM', () => {
    const f = (text: string) => expect(parsePublicKeyPem(text, 'k').key.asymmetricKeyType).toBeDefined();
    f(spki(rsa));
    f(rsa.publicKey.export({ type: 'pkcs1', format: 'pem' }) as string);
    f(spki(ec256).replaceAll('\n', ''));
    f(spki(ec384).replaceAll('\n', '\\n'));
  });

  it('refuses private keys, symmetric and unusable keys, and garbage, naming the source', () => {
    const f = (text: string, re: RegExp) => {
      expect(() => parsePublicKeyPem(text, 'file "a.pem"')).toThrow(KeyError);
      expect(() => parsePublicKeyPem(text, 'file "a.pem"')).toThrow(re);
    };
    f(rsa.privateKey.export({ type: 'pkcs8', format: 'pem' }) as string, /file "a.pem" holds a private key/);
    f('secret', /cannot find a PEM block/);
    f('-----BEGIN PUBLIC KEY-----\nAAAA\n-----END PUBLIC KEY-----', /cannot parse the public key in file "a.pem"/);
    f(generateKeyPairSync('ed25519').publicKey.export({ type: 'spki', format: 'pem' }) as string, /ed25519 key fits none of/);
    f(generateKeyPairSync('ec', { namedCurve: 'secp256k1' }).publicKey.export({ type: 'spki', format: 'pem' }) as string, /curve secp256k1/);
  });
});

describe('fits', () => {
  it('matches algorithms to key types and curves', () => {
    const r = parsePublicKeyPem(spki(rsa), 'r');
    const e256 = parsePublicKeyPem(spki(ec256), 'e');
    const e384 = parsePublicKeyPem(spki(ec384), 'e');
    expect(['RS256', 'RS384', 'RS512', 'PS256', 'PS512'].every((a) => fits(r, a as 'RS256'))).toBe(true);
    expect(fits(r, 'ES256')).toBe(false);
    expect(fits(e256, 'ES256')).toBe(true);
    expect(fits(e256, 'ES384')).toBe(false);
    expect(fits(e384, 'ES384')).toBe(true);
    expect(fits(e384, 'RS256')).toBe(false);
    expect(fits({ ...r, alg: 'RS384' }, 'RS256')).toBe(false);
  });
});

describe('keysFromJwks', () => {
  it('keeps RSA and EC signature keys and says why it skipped the others', () => {
    const jwk = (k: typeof rsa, extra: object) => ({ ...k.publicKey.export({ format: 'jwk' }), ...extra });
    const { keys, skipped } = keysFromJwks({
      keys: [
        jwk(rsa, { kid: 'a', alg: 'RS256', use: 'sig' }),
        jwk(ec256, { kid: 'b' }),
        { kty: 'oct', k: 'c2VjcmV0', kid: 'h' },
        jwk(rsa, { kid: 'enc', use: 'enc' }),
        jwk(rsa, { kid: 'hs', alg: 'HS256' }),
        { kty: 'OKP', crv: 'Ed25519', x: 'AAAA' },
        { kty: 'RSA', n: 'AQAB', kid: 'broken' },
        5,
      ],
    }, 'https://idp');
    expect(keys.map((k) => [k.kid, k.alg])).toEqual([['a', 'RS256'], ['b', undefined]]);
    expect(skipped).toHaveLength(6);
    expect(skipped.join('\n')).toMatch(/kid "h"\): key type "oct" is not RSA or EC/);
    expect(skipped.join('\n')).toMatch(/"use" is "enc"/);
    expect(skipped.join('\n')).toMatch(/algorithm "HS256" is not accepted/);
  });

  it('never loads a private part, and refuses documents without keys', () => {
    const priv = rsa.privateKey.export({ format: 'jwk' });
    const { keys } = keysFromJwks({ keys: [{ ...priv, kid: 'p' }] }, 'x');
    expect(keys[0]!.key.type).toBe('public');
    expect(() => keysFromJwks({ key: [] }, 'https://idp')).toThrow(/the key set of https:\/\/idp has no "keys" array/);
    expect(() => keysFromJwks(null, 'x')).toThrow(KeyError);
  });
});
