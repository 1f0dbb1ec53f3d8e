import { createHash } from 'node:crypto';

// Credentials are matched by exact lookup of the Authorization header value in a map built at
// config load. The map holds canonical values ("Basic <base64(user:pass)>", "Bearer <token>"),
// so the common case is one hash lookup; other spellings are canonicalised on a miss.

/** basicKey is the canonical Authorization value for Basic credentials. */
export const basicKey = (username: string, password: string): string =>
  `Basic ${Buffer.from(`${username}:${password}`, 'utf8').toString('base64')}`;

/** bearerKey is the canonical Authorization value for a bearer token. */
export const bearerKey = (token: string): string => `Bearer ${token}`;

/**
 * userAuthKeys lists the canonical values matching a user: username/password as Basic; a bearer
 * token as Bearer (which `Token <t>` also maps to) and as a Basic username with an empty password.
 */
export function userAuthKeys(u: { username?: string; password?: string; bearerToken?: string }): string[] {
  if (u.bearerToken !== undefined) return [bearerKey(u.bearerToken), basicKey(u.bearerToken, '')];
  if (u.username !== undefined) return [basicKey(u.username, u.password ?? '')];
  return [];
}

/** bearerLabel is the metric label of a user known only by a bearer token: a hash, never the token. */
export function bearerLabel(token: string): string {
  return `bearer_token:hash:${createHash('sha256').update(token).digest('hex').slice(0, 16).toUpperCase()}`;
}

const SCHEME = /^([A-Za-z]+)[ \t]+(.*?)[ \t]*$/s;
const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

/**
 * candidateKeys canonicalises an Authorization header value that missed the exact lookup:
 * Basic (any scheme case, padding-free base64), Bearer, `Token <t>` (as Bearer <t>, and for the
 * influx form `Token user:pass` also as Basic user/pass). Returns [] when nothing could match.
 */
export function candidateKeys(header: string): string[] {
  const m = SCHEME.exec(header);
  if (m === null) return [];
  const scheme = m[1]!.toLowerCase();
  const value = m[2]!;
  if (value === '') return [];
  if (scheme === 'bearer') return [bearerKey(value)];
  if (scheme === 'token') {
    const colon = value.indexOf(':');
    return colon < 0 ? [bearerKey(value)] : [bearerKey(value), basicKey(value.slice(0, colon), value.slice(colon + 1))];
  }
  if (scheme === 'basic') {
    if (!BASE64.test(value)) return [];
    const decoded = Buffer.from(value, 'base64').toString('utf8');
    const colon = decoded.indexOf(':');
    return colon < 0 ? [basicKey(decoded, '')] : [basicKey(decoded.slice(0, colon), decoded.slice(colon + 1))];
  }
  return [];
}

/**
 * queryCredentialKey builds the Basic key from influx-style `u`/`p` query args, or undefined when
 * the query has no `u` arg. A malformed escape yields undefined (no match).
 */
export function queryCredentialKey(query: string): string | undefined {
  if (query === '' || !(query.startsWith('u=') || query.includes('&u='))) return undefined;
  let u: string | undefined;
  let p = '';
  try {
    for (const [k, v] of new URLSearchParams(query)) {
      if (k === 'u' && u === undefined) u = v;
      else if (k === 'p' && p === '') p = v;
    }
  } catch {
    return undefined;
  }
  return u === undefined ? undefined : basicKey(u, p);
}
