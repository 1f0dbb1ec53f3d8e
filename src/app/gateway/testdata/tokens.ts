// Test helper: key pairs and signed tokens for the gateway's unit and process tests.
import { generateKeyPairSync, type KeyObject } from 'node:crypto';
import { SignJWT } from 'jose';

/** TestKey is a key pair with its public key as PEM and JWK. */
export interface TestKey {
  readonly alg: string;
  readonly privateKey: KeyObject;
  readonly publicKey: KeyObject;
  readonly pem: string;
  jwk(extra?: Record<string, unknown>): Record<string, unknown>;
}

const CURVES: Readonly<Record<string, string>> = { ES256: 'P-256', ES384: 'P-384', ES512: 'P-521' };

/** testKey makes a key pair for alg (RS*, PS* share RSA 2048; ES* their curve). */
export function testKey(alg = 'RS256'): TestKey {
  const pair = alg.startsWith('ES') ? generateKeyPairSync('ec', { namedCurve: CURVES[alg]! }) : generateKeyPairSync('rsa', { modulusLength: 2048 });
  const pem = pair.publicKey.export({ type: 'spki', format: 'pem' }) as string;
  return { alg, ...pair, pem, jwk: (extra = {}) => ({ ...pair.publicKey.export({ format: 'jwk' }), ...extra }) };
}

/** TokenOptions shape a token; svc_access defaults to {tenant_id: {}} and exp to an hour from now. */
export interface TokenOptions {
  readonly access?: unknown;
  readonly exp?: number | null;
  readonly kid?: string;
  readonly alg?: string;
  readonly payload?: Record<string, unknown>;
}

/** signToken signs a token with key (alg: the key's unless given). */
export async function signToken(key: TestKey, o: TokenOptions = {}): Promise<string> {
  const exp = o.exp === undefined ? Math.floor(Date.now() / 1000) + 3600 : o.exp;
  const payload: Record<string, unknown> = { svc_access: o.access === undefined ? { tenant_id: {} } : o.access };
  if (exp !== null) payload.exp = exp;
  Object.assign(payload, o.payload);
  const header: Record<string, unknown> = { alg: o.alg ?? key.alg, typ: 'JWT' };
  if (o.kid !== undefined) header.kid = o.kid;
  return new SignJWT(payload).setProtectedHeader(header as { alg: string }).sign(key.privateKey);
}

const b64 = (v: unknown) => Buffer.from(typeof v === 'string' ? v : JSON.stringify(v)).toString('base64url');

/** rawToken assembles a token from parts without signing (alg none, forged signatures). */
export function rawToken(header: unknown, payload: unknown, signature = ''): string {
  return `${b64(header)}.${b64(payload)}.${signature}`;
}
