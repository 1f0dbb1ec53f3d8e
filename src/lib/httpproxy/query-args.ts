// Query args a route forces (for example `extra_label` on a tenant's url_prefix) must reach the
// backend exactly as configured: a client arg of the same name is dropped, whatever its spelling
// on the wire (`extra%5Flabel` decodes to the same name on the backend).

/** QueryError: a client query arg name has a malformed percent escape. */
export class QueryError extends Error {
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = 'QueryError';
  }
}

/** ForcedArgs are the query args of a url_prefix: always sent, never overridden by the client. */
export interface ForcedArgs {
  /** names are the decoded arg names. */
  readonly names: ReadonlySet<string>;
  /** encoded is the args as a query string without "?" ("" for none). */
  readonly encoded: string;
}

/** NO_FORCED_ARGS forces nothing. */
export const NO_FORCED_ARGS: ForcedArgs = { names: new Set(), encoded: '' };

/** forcedArgsFromSearch builds ForcedArgs from a URL's search params. */
export function forcedArgsFromSearch(params: URLSearchParams): ForcedArgs {
  const names = new Set<string>();
  for (const k of params.keys()) names.add(k);
  return { names, encoded: params.toString() };
}

/**
 * mergeQueryArgs returns the upstream query string (without "?"): the client's args in their
 * original encoding and order, minus those named in forced, followed by the forced args.
 * Throws QueryError when a client arg name cannot be decoded. Pure.
 */
export function mergeQueryArgs(clientQuery: string, forced: ForcedArgs): string {
  if (forced.names.size === 0) return clientQuery;
  if (clientQuery === '') return forced.encoded;
  let out = '';
  for (const piece of clientQuery.split('&')) {
    if (piece === '') continue;
    const eq = piece.indexOf('=');
    const rawName = eq < 0 ? piece : piece.slice(0, eq);
    if (forced.names.has(decodeArgName(rawName))) continue;
    out += out === '' ? piece : `&${piece}`;
  }
  if (forced.encoded === '') return out;
  return out === '' ? forced.encoded : `${out}&${forced.encoded}`;
}

/** decodeArgName decodes a form-encoded name ("+" is a space). */
export function decodeArgName(raw: string): string {
  if (!raw.includes('%') && !raw.includes('+')) return raw;
  try {
    return decodeURIComponent(raw.replaceAll('+', ' '));
  } catch (err) {
    throw new QueryError(`cannot decode query arg name ${JSON.stringify(raw.slice(0, 100))}: malformed percent escape`, { cause: err });
  }
}
