// Authentication: which configured user a request's credentials name. Pure lookups in the state's
// key map; no allocation for the common case (the header is a user's canonical key).

import { candidateKeys, queryCredentialKey } from './credentials.ts';
import type { ProxyState, UserState } from './state.ts';

/** Auth is the user a request authenticated as, or why it did not: no credentials, unknown ones. */
export type Auth = UserState | 'missing' | 'invalid';

/**
 * authenticate looks the Authorization header up (as sent, then in its other accepted spellings),
 * or, without a header, the credentials of the query string (`query` is the part after '?').
 */
export function authenticate(state: ProxyState, header: string | undefined, query: string): Auth {
  if (header !== undefined) {
    const u = state.byKey.get(header);
    if (u !== undefined) return u;
    for (const k of candidateKeys(header)) {
      const c = state.byKey.get(k);
      if (c !== undefined) return c;
    }
    return 'invalid';
  }
  const key = queryCredentialKey(query);
  if (key === undefined) return 'missing';
  return state.byKey.get(key) ?? 'invalid';
}

/** countHeader counts a header in raw headers (Node keeps only the first of repeated Authorization headers). */
export function countHeader(raw: readonly string[], lowerName: string): number {
  let n = 0;
  for (let i = 0; i < raw.length; i += 2) if (raw[i]!.length === lowerName.length && raw[i]!.toLowerCase() === lowerName) n++;
  return n;
}
