// Verification keys (SPEC "Authentication" 3–4): public keys only, RSA or EC on the curves of the
// accepted algorithms. HMAC is unsupported by design: a symmetric key is never loaded, so no token
// can be verified with a public key used as an HMAC secret.
import { createPublicKey, type KeyObject } from 'node:crypto';

/** ALGORITHMS are the accepted signature algorithms (SPEC A1); every other `alg` is rejected. */
export const ALGORITHMS = ['RS256', 'RS384', 'RS512', 'ES256', 'ES384', 'ES512', 'PS256', 'PS384', 'PS512'] as const;
export type Algorithm = (typeof ALGORITHMS)[number];

const ALGORITHM_SET: ReadonlySet<string> = new Set(ALGORITHMS);

/** isAlgorithm reports whether alg is accepted. */
export function isAlgorithm(alg: unknown): alg is Algorithm {
  return typeof alg === 'string' && ALGORITHM_SET.has(alg);
}

// The curve each ECDSA algorithm is defined on (RFC 7518 §3.4), as Node names it.
const CURVE: Readonly<Record<string, string>> = { ES256: 'prime256v1', ES384: 'secp384r1', ES512: 'secp521r1' };

/** VerificationKey is one public key with what its source says about it. */
export interface VerificationKey {
  readonly key: KeyObject;
  /** kid is the key id of a key-set entry; undefined for keys given as PEM. */
  readonly kid: string | undefined;
  /** alg restricts the key to one algorithm when its key-set entry says so. */
  readonly alg: string | undefined;
  /** source names where the key came from (a file, "-auth.publicKeys[1]", an endpoint URL). */
  readonly source: string;
}

/** KeyError: a key cannot be used; the message names its source. */
export class KeyError extends Error {
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = 'KeyError';
  }
}

/** fits reports whether a key can verify signatures of alg. */
export function fits(k: VerificationKey, alg: Algorithm): boolean {
  if (k.alg !== undefined && k.alg !== alg) return false;
  const type = k.key.asymmetricKeyType;
  if (alg.startsWith('ES')) return type === 'ec' && k.key.asymmetricKeyDetails?.namedCurve === CURVE[alg];
  if (alg.startsWith('PS')) return type === 'rsa' || type === 'rsa-pss';
  return type === 'rsa';
}

function checkUsable(key: KeyObject, source: string): void {
  const type = key.asymmetricKeyType;
  if (type === 'rsa' || type === 'rsa-pss') return;
  if (type === 'ec' && Object.values(CURVE).includes(key.asymmetricKeyDetails?.namedCurve ?? '')) return;
  throw new KeyError(`cannot use the key of ${source}: a ${type}${type === 'ec' ? ` key on curve ${key.asymmetricKeyDetails?.namedCurve}` : ' key'} fits none of ${ALGORITHMS.join(', ')}`);
}

const PEM = /-----BEGIN ([A-Z0-9 ]+)-----([\s\S]*?)-----END \1-----/;

/**
 * parsePublicKeyPem reads one PEM public key (SPKI "PUBLIC KEY", PKCS#1 "RSA PUBLIC KEY" or an
 * X.509 certificate). Inline keys may have their newlines written as "\n" or left out. A private
 * key is refused: it does not belong on the gateway. Throws KeyError naming source.
 */
export function parsePublicKeyPem(text: string, source: string): VerificationKey {
  const m = PEM.exec(text.replaceAll('\\n', '\n'));
  if (m === null) throw new KeyError(`cannot find a PEM block ("-----BEGIN PUBLIC KEY-----") in ${source}`);
  const label = m[1]!;
  if (label.includes('PRIVATE')) throw new KeyError(`${source} holds a private key ("${label}"); give the gateway only the public key`);
  const body = m[2]!.replace(/\s+/g, '');
  const pem = `-----BEGIN ${label}-----\n${body.replace(/(.{64})/g, '$1\n').replace(/\n$/, '')}\n-----END ${label}-----\n`;
  let key: KeyObject;
  try {
    key = createPublicKey(pem);
  } catch (err) {
    throw new KeyError(`cannot parse the public key in ${source}: ${(err as Error).message}`, { cause: err });
  }
  checkUsable(key, source);
  return { key, kid: undefined, alg: undefined, source };
}

/** KeySetResult is what a JWKS document gave: usable keys, and why the others were skipped. */
export interface KeySetResult {
  readonly keys: VerificationKey[];
  readonly skipped: string[];
}

/**
 * keysFromJwks reads a JWK Set document (RFC 7517 §5). Entries that are not signature keys of an
 * accepted kind (symmetric "oct", OKP, `use` other than "sig", unknown `alg`) are skipped with a
 * reason; a document without a "keys" array is a KeyError. Pure.
 */
export function keysFromJwks(doc: unknown, source: string): KeySetResult {
  const keysRaw = (doc as { keys?: unknown } | null)?.keys;
  if (typeof doc !== 'object' || doc === null || !Array.isArray(keysRaw)) throw new KeyError(`the key set of ${source} has no "keys" array`);
  const keys: VerificationKey[] = [];
  const skipped: string[] = [];
  keysRaw.forEach((raw: unknown, i) => {
    const jwk = raw as Record<string, unknown> | null;
    const name = `${source} keys[${i}]${typeof jwk?.kid === 'string' ? ` (kid ${JSON.stringify(jwk.kid)})` : ''}`;
    if (typeof jwk !== 'object' || jwk === null) return void skipped.push(`${name}: not an object`);
    if (jwk.kty !== 'RSA' && jwk.kty !== 'EC') return void skipped.push(`${name}: key type ${JSON.stringify(jwk.kty)} is not RSA or EC`);
    if (jwk.use !== undefined && jwk.use !== 'sig') return void skipped.push(`${name}: "use" is ${JSON.stringify(jwk.use)}, not "sig"`);
    if (jwk.alg !== undefined && !isAlgorithm(jwk.alg)) return void skipped.push(`${name}: algorithm ${JSON.stringify(jwk.alg)} is not accepted`);
    if (jwk.kid !== undefined && typeof jwk.kid !== 'string') return void skipped.push(`${name}: "kid" is not a string`);
    try {
      const { d: _d, p: _p, q: _q, dp: _dp, dq: _dq, qi: _qi, ...pub } = jwk;
      const key = createPublicKey({ key: pub as import('node:crypto').JsonWebKey, format: 'jwk' });
      checkUsable(key, name);
      keys.push({ key, kid: jwk.kid as string | undefined, alg: jwk.alg as string | undefined, source });
    } catch (err) {
      skipped.push(`${name}: ${(err as Error).message}`);
    }
  });
  return { keys, skipped };
}
