// The storage's snapshot API (DECISIONS.md "Snapshot API"), as the backup manager calls it:
//   GET <-snapshot.createURL>                 → {"status":"ok","snapshot":"<name>"}
//   GET <-snapshot.deleteURL>?snapshot=<name> → {"status":"ok"}
// failures → {"status":"error","msg":"…"}. The snapshot is <storageDataPath>/snapshots/<name>/.

import { ParseError } from '../../lib/backup/index.ts';
import { redactUrl } from '../../lib/logger/index.ts';

/** SnapshotApi creates and deletes storage snapshots. */
export interface SnapshotApi {
  /** create makes a snapshot and returns its name (a single path segment). */
  create(signal?: AbortSignal): Promise<string>;
  /** delete removes snapshot `name`. */
  delete(name: string, signal?: AbortSignal): Promise<void>;
}

/**
 * deriveSnapshotDeleteUrl returns the default `-snapshot.deleteURL`: the create URL with its
 * last path segment `create` replaced by `delete`, keeping host, credentials and query (an
 * `authKey` works for both). It throws ParseError when the create URL does not end in
 * `/create`, since nothing sensible can be derived then.
 */
export function deriveSnapshotDeleteUrl(createUrl: string): string {
  const u = parseHttpUrl(createUrl, '-snapshot.createURL');
  if (!/\/create\/?$/.test(u.pathname)) {
    throw new ParseError(`cannot derive -snapshot.deleteURL from -snapshot.createURL "${redactUrl(createUrl)}": its path does not end in /create; set -snapshot.deleteURL`);
  }
  u.pathname = u.pathname.replace(/\/create(\/?)$/, '/delete$1');
  return u.toString();
}

/** parseHttpUrl parses an http(s) URL flag, throwing ParseError naming the flag. */
export function parseHttpUrl(raw: string, flag: string): URL {
  let u: URL;
  try {
    u = new URL(raw);
  } catch (err) {
    throw new ParseError(`cannot parse ${flag} "${redactUrl(raw)}": not a URL`, { cause: err });
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:') {
    throw new ParseError(`cannot parse ${flag} "${redactUrl(raw)}": only http and https URLs are supported`);
  }
  return u;
}

const SNAPSHOT_NAME_RE = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,254}$/;

/**
 * parseSnapshotCreateResponse returns the snapshot name in a /snapshot/create response body.
 * It throws ParseError for a body that is not `{"status":"ok","snapshot":"<name>"}` with a
 * name that is one safe path segment (it becomes a directory name), quoting the storage's
 * `msg` when it reports an error.
 */
export function parseSnapshotCreateResponse(body: string): string {
  const v = parseJsonObject(body, 'snapshot create');
  if (v.status !== 'ok') throw new ParseError(`snapshot create failed: ${describeFailure(v, body)}`);
  const name = v.snapshot;
  if (typeof name !== 'string' || !SNAPSHOT_NAME_RE.test(name) || name.includes('..')) {
    throw new ParseError(`snapshot create answered an unusable snapshot name ${JSON.stringify(name)}`);
  }
  return name;
}

/** checkSnapshotDeleteResponse throws ParseError unless the body is `{"status":"ok"}`. */
export function checkSnapshotDeleteResponse(body: string): void {
  const v = parseJsonObject(body, 'snapshot delete');
  if (v.status !== 'ok') throw new ParseError(`snapshot delete failed: ${describeFailure(v, body)}`);
}

/** SnapshotClientOptions configure createSnapshotClient. */
export interface SnapshotClientOptions {
  readonly createUrl: string;
  readonly deleteUrl: string;
  /** timeoutMs bounds each request (a snapshot of a big storage takes a while); default 5 minutes. */
  readonly timeoutMs?: number;
}

/**
 * createSnapshotClient calls the storage's snapshot endpoints over HTTP. Credentials in the URLs
 * (`http://user:pass@host/…`) are sent as Basic auth; errors name the URL without them.
 */
export function createSnapshotClient(o: SnapshotClientOptions): SnapshotApi {
  const timeoutMs = o.timeoutMs ?? 300_000;
  return {
    async create(signal) {
      const body = await get(parseHttpUrl(o.createUrl, '-snapshot.createURL'), timeoutMs, signal);
      return parseSnapshotCreateResponse(body);
    },
    async delete(name, signal) {
      const u = parseHttpUrl(o.deleteUrl, '-snapshot.deleteURL');
      u.searchParams.set('snapshot', name);
      checkSnapshotDeleteResponse(await get(u, timeoutMs, signal));
    },
  };
}

async function get(u: URL, timeoutMs: number, signal: AbortSignal | undefined): Promise<string> {
  const headers: Record<string, string> = {};
  if (u.username !== '' || u.password !== '') {
    const user = decodeURIComponent(u.username);
    const pass = decodeURIComponent(u.password);
    headers.authorization = `Basic ${Buffer.from(`${user}:${pass}`).toString('base64')}`;
    u.username = '';
    u.password = '';
  }
  const timeout = AbortSignal.timeout(timeoutMs);
  const s = signal ? AbortSignal.any([signal, timeout]) : timeout;
  const shown = redactUrl(u.toString());
  let res: Response;
  let text: string;
  try {
    res = await fetch(u, { headers, signal: s });
    text = await res.text();
  } catch (err) {
    signal?.throwIfAborted();
    const why = timeout.aborted ? `no answer in ${timeoutMs / 1000}s` : causeMessage(err);
    throw new Error(`cannot call ${shown}: ${why}`, { cause: err });
  }
  if (!res.ok) throw new Error(`cannot call ${shown}: HTTP ${res.status}: ${text.slice(0, 500)}`);
  return text;
}

// fetch reports network failures as "fetch failed" with the real reason in `cause`.
function causeMessage(err: unknown): string {
  const e = err as Error & { cause?: { message?: string; code?: string } };
  const inner = e.cause?.code ?? e.cause?.message;
  return inner ? `${e.message} (${inner})` : e.message;
}

function parseJsonObject(body: string, what: string): Record<string, unknown> {
  let v: unknown;
  try {
    v = JSON.parse(body);
  } catch (err) {
    throw new ParseError(`cannot parse the ${what} response ${JSON.stringify(body.slice(0, 200))}: ${(err as Error).message}`, { cause: err });
  }
  if (typeof v !== 'object' || v === null || Array.isArray(v)) {
    throw new ParseError(`cannot parse the ${what} response ${JSON.stringify(body.slice(0, 200))}: expected a JSON object`);
  }
  return v as Record<string, unknown>;
}

function describeFailure(v: Record<string, unknown>, body: string): string {
  return typeof v.msg === 'string' ? v.msg : `unexpected response ${JSON.stringify(body.slice(0, 200))}`;
}
