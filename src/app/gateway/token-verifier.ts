// Token checks (SPEC "Authentication" for the gateway; DECISIONS.md "Gateway"): structure, an
// accepted algorithm, the signature (when keys are given), `exp`, then the claims. Tokens that
// pass are cached with their forced args until they expire.
import { decodeJwt, decodeProtectedHeader, errors, jwtVerify } from 'jose';
import { claimArgs } from './claim-args.ts';
import { type Claims, ClaimsError, parseClaims } from './claims.ts';
import type { KeyStore } from './key-store.ts';
import { type Algorithm, isAlgorithm, type VerificationKey } from './keys.ts';
import type { TokenCache, TokenEntry } from './token-cache.ts';

/** RejectReason is why a token was refused (the `reason` label of gateway_auth_rejects_total). */
export type RejectReason = 'missing_token' | 'malformed_token' | 'token_too_large' | 'unsupported_alg' | 'bad_signature' | 'unknown_kid' | 'expired' | 'invalid_claims';

/** Verified is the outcome of a token check. */
export type Verified =
  | { readonly ok: true; readonly entry: TokenEntry }
  | { readonly ok: false; readonly reason: RejectReason; readonly detail: string };

/** MAX_TOKEN_BYTES bounds a token; larger ones are refused before any decoding. */
export const MAX_TOKEN_BYTES = 8192;

const JWT_SHAPE = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*$/;

/** tokenFromHeader takes the token from a header value: "Bearer <token>", or the bare token. */
export function tokenFromHeader(value: string | undefined): string {
  if (value === undefined) return '';
  const v = value.trim();
  if (v.length === 6 && v.toLowerCase() === 'bearer') return '';
  return v.length >= 7 && v.slice(0, 7).toLowerCase() === 'bearer ' ? v.slice(7).trim() : v;
}

/** VerifierOptions wire the verifier. */
export interface VerifierOptions {
  readonly keys: KeyStore;
  readonly cache: TokenCache;
  /** now returns ms since the epoch. */
  readonly now: () => number;
}

const reject = (reason: RejectReason, detail: string): Verified => ({ ok: false, reason, detail });

/** TokenVerifier checks tokens against the key store, caching the ones that pass. */
export class TokenVerifier {
  readonly #o: VerifierOptions;

  constructor(o: VerifierOptions) {
    this.#o = o;
  }

  /** cached returns the entry of a token verified before and not expired (the per-request fast path). */
  cached(token: string): TokenEntry | undefined {
    return this.#o.cache.get(token, this.#o.now());
  }

  /** verify checks a token fully. Never rejects. */
  async verify(token: string): Promise<Verified> {
    if (token === '') return reject('missing_token', 'no token');
    if (token.length > MAX_TOKEN_BYTES) return reject('token_too_large', `the token has ${token.length} bytes, more than ${MAX_TOKEN_BYTES}`);
    if (!JWT_SHAPE.test(token)) return reject('malformed_token', 'the token is not three base64url parts separated by "."');
    let alg: unknown;
    let kid: unknown;
    try {
      ({ alg, kid } = decodeProtectedHeader(token));
    } catch (err) {
      return reject('malformed_token', `cannot decode the token header: ${(err as Error).message}`);
    }
    if (!isAlgorithm(alg)) return reject('unsupported_alg', `algorithm ${JSON.stringify(alg)} is not accepted`);
    if (kid !== undefined && typeof kid !== 'string') return reject('malformed_token', '"kid" is not a string');
    let payload: unknown;
    try {
      payload = decodeJwt(token);
    } catch (err) {
      return reject('malformed_token', `cannot decode the token payload: ${(err as Error).message}`);
    }
    let claims: Claims;
    try {
      claims = parseClaims(payload);
    } catch (err) {
      if (err instanceof ClaimsError) return reject('invalid_claims', err.message);
      throw err;
    }
    const now = this.#o.now();
    if (claims.exp * 1000 <= now) return reject('expired', `the token expired at ${new Date(claims.exp * 1000).toISOString()}`);
    const nbf = (payload as { nbf?: unknown }).nbf;
    if (typeof nbf === 'number' && nbf * 1000 > now) return reject('invalid_claims', `the token is not valid before ${new Date(nbf * 1000).toISOString()}`);
    if (this.#o.keys.configured) {
      const failed = await this.#checkSignature(token, alg, kid);
      if (failed !== undefined) return failed;
    }
    const entry: TokenEntry = { claims, expMs: claims.exp * 1000, readArgs: claimArgs(claims, 'read'), writeArgs: claimArgs(claims, 'write') };
    this.#o.cache.set(token, entry);
    return { ok: true, entry };
  }

  // Keys with the token's kid first, then keys without a kid. A kid no key has may be a key the
  // identity provider added since the last fetch: refresh (rate-limited) and try once more.
  async #checkSignature(token: string, alg: Algorithm, kid: string | undefined): Promise<Verified | undefined> {
    const keys = this.#o.keys;
    let c = keys.candidates(alg, kid);
    if (kid !== undefined && c.byKid.length === 0 && keys.hasRemotes) {
      const first = await this.#tryKeys(token, alg, c.others);
      if (first !== 'no-match') return first;
      await keys.refreshForUnknownKid();
      c = keys.candidates(alg, kid);
      if (c.byKid.length === 0) return reject('unknown_kid', `no ${alg} key has kid ${JSON.stringify(kid)}, and no key without a kid verifies the token`);
      const second = await this.#tryKeys(token, alg, c.byKid);
      return second === 'no-match' ? reject('bad_signature', `the signature does not verify with the ${alg} key of kid ${JSON.stringify(kid)}`) : second;
    }
    const all = [...c.byKid, ...c.others];
    if (all.length === 0) return reject(kid === undefined ? 'bad_signature' : 'unknown_kid', `no ${alg} key${kid === undefined ? '' : ` with kid ${JSON.stringify(kid)}`} to verify the token with`);
    const r = await this.#tryKeys(token, alg, all);
    return r === 'no-match' ? reject('bad_signature', `the signature does not verify with any of ${all.length} ${alg} key${all.length === 1 ? '' : 's'}`) : r;
  }

  // undefined: a key verified the token; 'no-match': none did; a rejection: the token is wrong in
  // a way no key can fix (claims jose checks itself, such as a non-numeric "iat").
  async #tryKeys(token: string, alg: Algorithm, keys: readonly VerificationKey[]): Promise<Verified | undefined | 'no-match'> {
    for (const k of keys) {
      try {
        await jwtVerify(token, k.key, { algorithms: [alg], currentDate: new Date(this.#o.now()) });
        return undefined;
      } catch (err) {
        if (err instanceof errors.JWSSignatureVerificationFailed || err instanceof TypeError || err instanceof errors.JOSENotSupported) continue;
        if (err instanceof errors.JWTExpired) return reject('expired', err.message);
        if (err instanceof errors.JWTClaimValidationFailed || err instanceof errors.JWTInvalid) return reject('invalid_claims', err.message);
        if (err instanceof errors.JOSEError) return reject('malformed_token', err.message);
        throw err;
      }
    }
    return 'no-match';
  }
}
