// Key sets fetched from -auth.jwksEndpoints and -auth.oidcDiscoveryEndpoints. Each is refreshed
// periodically, and sooner on a token whose `kid` no key has (rate-limited, so a stream of forged
// kids cannot make the gateway hammer the identity provider). While an endpoint is down its last
// keys stay in use, and it is retried at the shorter interval.
import { request } from 'undici';
import { redactUrl } from '../../lib/config/index.ts';
import type { Logger } from '../../lib/logger/index.ts';
import { KeyError, keysFromJwks, type VerificationKey } from './keys.ts';
import * as m from './metrics.ts';

/** FetchJson fetches a JSON document (injected in tests). */
export type FetchJson = (url: string) => Promise<unknown>;

const MAX_DOCUMENT_BYTES = 1 << 20;

/** fetchJson GETs a JSON document over http(s): status 200, at most 1 MiB, within timeoutMs. */
export async function fetchJson(url: string, timeoutMs = 10_000): Promise<unknown> {
  const res = await request(url, { method: 'GET', headers: { accept: 'application/json' }, headersTimeout: timeoutMs, bodyTimeout: timeoutMs });
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const c of res.body as AsyncIterable<Buffer>) {
    size += c.length;
    if (size > MAX_DOCUMENT_BYTES) {
      res.body.destroy();
      throw new Error(`the document is larger than ${MAX_DOCUMENT_BYTES} bytes`);
    }
    chunks.push(c);
  }
  const text = Buffer.concat(chunks).toString('utf8');
  if (res.statusCode !== 200) throw new Error(`status ${res.statusCode}: ${text.slice(0, 200)}`);
  try {
    return JSON.parse(text);
  } catch (err) {
    throw new Error(`the answer is not JSON: ${(err as Error).message}`, { cause: err });
  }
}

/** RemoteKeySetOptions describe one endpoint. */
export interface RemoteKeySetOptions {
  readonly url: string;
  /** discovery: url is an OpenID Connect discovery document whose `jwks_uri` holds the keys. */
  readonly discovery: boolean;
  readonly fetchJson: FetchJson;
  /** now returns ms (a monotonic or wall clock). */
  readonly now: () => number;
  /** refreshIntervalMs: time between refreshes while the endpoint answers. */
  readonly refreshIntervalMs: number;
  /** minRefreshIntervalMs: the least time between two fetches; also the retry interval after a failure. */
  readonly minRefreshIntervalMs: number;
  readonly logger: Logger;
  /** onChange is called when the set's keys changed. */
  readonly onChange: () => void;
}

/** RemoteKeySet holds the last keys one endpoint gave. */
export class RemoteKeySet {
  readonly #o: RemoteKeySetOptions;
  readonly #name: string;
  #keys: readonly VerificationKey[] = [];
  #fingerprint = '';
  #lastAttempt = -Infinity;
  #inflight: Promise<void> | undefined;
  #timer: NodeJS.Timeout | undefined;
  #stopped = false;

  constructor(o: RemoteKeySetOptions) {
    this.#o = o;
    this.#name = redactUrl(o.url);
  }

  /** keys are the keys of the last successful fetch (none before the first). */
  get keys(): readonly VerificationKey[] {
    return this.#keys;
  }

  get name(): string {
    return this.#name;
  }

  /** start fetches the keys once (a failure is logged, not thrown) and schedules the refreshes. */
  async start(): Promise<void> {
    await this.refresh();
  }

  /** refresh fetches now (joining a fetch in flight). */
  refresh(): Promise<void> {
    this.#inflight ??= this.#fetch().finally(() => {
      this.#inflight = undefined;
    });
    return this.#inflight;
  }

  /**
   * refreshIfAllowed fetches unless the last fetch started less than -auth.jwksMinRefreshInterval
   * ago; it joins a fetch in flight. Resolves when done (or at once when not allowed).
   */
  refreshIfAllowed(): Promise<void> {
    if (this.#inflight !== undefined) return this.#inflight;
    if (this.#o.now() - this.#lastAttempt < this.#o.minRefreshIntervalMs) return Promise.resolve();
    return this.refresh();
  }

  stop(): void {
    this.#stopped = true;
    clearTimeout(this.#timer);
  }

  async #fetch(): Promise<void> {
    const o = this.#o;
    this.#lastAttempt = o.now();
    let ok = false;
    try {
      const jwksUrl = o.discovery ? jwksUriOf(await o.fetchJson(o.url), this.#name) : o.url;
      const { keys, skipped } = keysFromJwks(await o.fetchJson(jwksUrl), this.#name);
      for (const s of skipped) o.logger.warn(`skipping a key: ${s}`);
      if (keys.length === 0) throw new KeyError(`the key set of ${this.#name} has no usable signature key`);
      this.#replace(keys);
      ok = true;
      m.keyRefreshes.inc({ endpoint: this.#name, result: 'ok' });
    } catch (err) {
      m.keyRefreshes.inc({ endpoint: this.#name, result: 'error' });
      o.logger.error({ err }, `cannot fetch verification keys from "${this.#name}"; keeping the ${this.#keys.length} keys fetched before`);
    }
    if (this.#stopped) return;
    clearTimeout(this.#timer);
    this.#timer = setTimeout(() => void this.refresh(), ok ? o.refreshIntervalMs : o.minRefreshIntervalMs);
    this.#timer.unref();
  }

  #replace(keys: VerificationKey[]): void {
    const fingerprint = keys.map((k) => `${k.kid ?? ''}/${k.alg ?? ''}/${JSON.stringify(k.key.export({ format: 'jwk' }))}`).join('\n');
    if (fingerprint === this.#fingerprint) return;
    const first = this.#fingerprint === '';
    this.#keys = keys;
    this.#fingerprint = fingerprint;
    m.keysLoaded.set({ source: this.#name }, keys.length);
    this.#o.logger.info(`${first ? 'loaded' : 'updated'} ${keys.length} verification key${keys.length === 1 ? '' : 's'} from "${this.#name}"`);
    this.#o.onChange();
  }
}

function jwksUriOf(doc: unknown, name: string): string {
  const uri = (doc as { jwks_uri?: unknown } | null)?.jwks_uri;
  if (typeof uri !== 'string' || !/^https?:\/\//i.test(uri)) throw new KeyError(`the discovery document of ${name} has no http(s) "jwks_uri"`);
  return uri;
}
