// Header rules shared by the proxies: hop-by-hop headers (RFC 9110 §7.6.1) describe one
// connection and are never forwarded; `expect` is answered by the front server itself; `host`
// is set by the upstream client to the backend's host.

const HOP_BY_HOP: ReadonlySet<string> = new Set([
  'connection', 'keep-alive', 'proxy-connection', 'transfer-encoding', 'te', 'trailer', 'upgrade',
  'proxy-authenticate', 'proxy-authorization', 'http2-settings',
]);
const NOT_FORWARDED: ReadonlySet<string> = new Set([...HOP_BY_HOP, 'host', 'expect']);

/** HeaderPair is one configured header ("Name: value" in configs). */
export interface HeaderPair {
  readonly name: string;
  readonly value: string;
}

/** ExtraHeaders are headers a route adds; they replace client headers of the same name. */
export interface ExtraHeaders {
  readonly pairs: readonly HeaderPair[];
  /** lowerNames are the lower-cased names of pairs. */
  readonly lowerNames: ReadonlySet<string>;
}

/** NO_EXTRA_HEADERS adds nothing. */
export const NO_EXTRA_HEADERS: ExtraHeaders = { pairs: [], lowerNames: new Set() };

/** extraHeaders builds ExtraHeaders from pairs. */
export function extraHeaders(pairs: readonly HeaderPair[]): ExtraHeaders {
  return pairs.length === 0 ? NO_EXTRA_HEADERS : { pairs, lowerNames: new Set(pairs.map((p) => p.name.toLowerCase())) };
}

const NO_TOKENS: string[] = [];

/** connectionTokens lists the header names named by a Connection header (also hop-by-hop). */
function connectionTokens(value: string): string[] {
  // The usual values name no other header; skip the split on every response.
  if (value === 'keep-alive' || value === 'close' || value === 'Keep-Alive' || value === 'Close') return NO_TOKENS;
  return value.split(',').map((t) => t.trim().toLowerCase()).filter((t) => t !== '');
}

/**
 * upstreamRequestHeaders converts the client's raw headers (Node's flat [name, value, ...]) into the
 * flat list sent upstream: hop-by-hop, Host and Expect dropped, headers of `extra` replacing the
 * client's, clientIp appended to X-Forwarded-For. Pure.
 */
export function upstreamRequestHeaders(raw: readonly string[], clientIp: string, extra: ExtraHeaders): string[] {
  const out: string[] = [];
  let forwardedFor = '';
  let dropped: string[] | undefined;
  for (let i = 0; i < raw.length; i += 2) {
    const name = raw[i]!;
    const value = raw[i + 1]!;
    const lower = name.toLowerCase();
    if (lower === 'connection') dropped = connectionTokens(value);
    if (NOT_FORWARDED.has(lower) || extra.lowerNames.has(lower)) continue;
    if (lower === 'x-forwarded-for') {
      forwardedFor = forwardedFor === '' ? value : `${forwardedFor}, ${value}`;
      continue;
    }
    out.push(name, value);
  }
  if (dropped !== undefined && dropped.length > 0) removeNamed(out, new Set(dropped));
  for (const p of extra.pairs) out.push(p.name, p.value);
  out.push('x-forwarded-for', forwardedFor === '' ? clientIp : `${forwardedFor}, ${clientIp}`);
  return out;
}

function removeNamed(flat: string[], names: ReadonlySet<string>): void {
  let w = 0;
  for (let r = 0; r < flat.length; r += 2) {
    if (names.has(flat[r]!.toLowerCase())) continue;
    flat[w++] = flat[r]!;
    flat[w++] = flat[r + 1]!;
  }
  flat.length = w;
}

/**
 * downstreamResponseHeaders filters the backend's response headers (as undici parses them: lower-case
 * names, repeated headers as arrays) for the client: hop-by-hop headers and those named by
 * Connection are dropped. Returns a flat [name, value, ...] list for `writeHead`. Pure.
 */
export function downstreamResponseHeaders(headers: Readonly<Record<string, string | string[] | undefined>>): string[] {
  const out: string[] = [];
  const conn = headers.connection;
  const named = conn === undefined ? undefined : connectionTokens(typeof conn === 'string' ? conn : conn.join(','));
  for (const name in headers) {
    const v = headers[name];
    if (v === undefined || HOP_BY_HOP.has(name) || named?.includes(name) === true) continue;
    if (typeof v === 'string') out.push(name, v);
    else for (const x of v) out.push(name, x);
  }
  return out;
}
