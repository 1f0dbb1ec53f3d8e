// The client of -datasource.url, the Prometheus-compatible API that holds the cluster's own
// metrics (SPEC A2 rule 5; the -datasource.* flags). It sends instant queries with the `time` and
// `step` params vmalert sends, with Basic, bearer or OAuth2 credentials, extra headers and TLS.
import { readFile } from 'node:fs/promises';
import { Agent, type Dispatcher, request } from 'undici';
import { redactUrl } from '../../lib/config/index.ts';
import type { HeaderPair } from '../../lib/httpproxy/index.ts';
import { OAuth2TokenSource } from './oauth2.ts';

/** Secret is a credential given inline or in a file (re-read on every use, so it may rotate). */
export type Secret = { readonly value: string } | { readonly file: string };

/** DatasourceAuth is how the gateway authenticates to the datasource. */
export type DatasourceAuth =
  | { readonly kind: 'none' }
  | { readonly kind: 'basic'; readonly username: string; readonly password: Secret }
  | { readonly kind: 'bearer'; readonly token: Secret }
  | { readonly kind: 'oauth2'; readonly clientID: string; readonly clientSecret: Secret; readonly tokenUrl: string; readonly scopes: readonly string[] };

/** DatasourceTls are the -datasource.tls* settings. */
export interface DatasourceTls {
  readonly caFile: string;
  readonly certFile: string;
  readonly keyFile: string;
  readonly serverName: string;
  readonly insecureSkipVerify: boolean;
}

/** DatasourceOptions are the -datasource.* flags as values. */
export interface DatasourceOptions {
  readonly url: string;
  readonly appendTypePrefix: boolean;
  readonly disablePathAppend: boolean;
  readonly auth: DatasourceAuth;
  readonly headers: readonly HeaderPair[];
  readonly lookbackMs: number;
  /** queryStepMs is the `step` param; 0 uses evaluationIntervalMs. */
  readonly queryStepMs: number;
  readonly queryTimeAlignment: boolean;
  /** roundDigits adds `round_digits` when defined. */
  readonly roundDigits: number | undefined;
  /** evaluationIntervalMs is how often usage is refreshed (-ratelimit.refreshInterval). */
  readonly evaluationIntervalMs: number;
  readonly tls: DatasourceTls;
  readonly disableKeepAlive: boolean;
  readonly maxIdleConnections: number;
  readonly timeoutMs: number;
  /** showURL: name the URL in errors; otherwise "-datasource.url" stands for it. */
  readonly showURL: boolean;
  /** now returns ms since the epoch. */
  readonly now: () => number;
}

/** parseDatasourceHeaders reads -datasource.headers ("h1:v1^^h2:v2"); throws Error naming a bad entry. */
export function parseDatasourceHeaders(text: string): HeaderPair[] {
  if (text.trim() === '') return [];
  return text.split('^^').map((h) => {
    const colon = h.indexOf(':');
    const name = colon < 0 ? '' : h.slice(0, colon).trim();
    if (!/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/.test(name)) throw new Error(`-datasource.headers entry ${JSON.stringify(h)} must look like Name:value`);
    return { name, value: h.slice(colon + 1).trim() };
  });
}

async function secretValue(s: Secret, what: string): Promise<string> {
  if ('value' in s) return s.value;
  try {
    return (await readFile(s.file, 'utf8')).trim();
  } catch (err) {
    throw new Error(`cannot read ${what} from "${s.file}": ${(err as Error).message}`, { cause: err });
  }
}

/** queryUrl is the instant-query URL of the datasource (path appends of the -datasource.* flags). */
export function queryUrl(o: Pick<DatasourceOptions, 'url' | 'appendTypePrefix' | 'disablePathAppend'>): URL {
  const u = new URL(o.url);
  const path = u.pathname.replace(/\/+$/, '');
  u.pathname = `${path}${o.appendTypePrefix ? '/prometheus' : ''}${o.disablePathAppend ? '' : '/api/v1/query'}`;
  return u;
}

const MAX_ANSWER_BYTES = 64 << 20;

/** Datasource sends instant queries. */
export class Datasource {
  readonly #o: DatasourceOptions;
  readonly #url: URL;
  readonly #dispatcher: Agent;
  readonly #oauth2: OAuth2TokenSource | undefined;
  readonly #name: string;

  /** The constructor reads the TLS files; it throws naming one that cannot be read. */
  constructor(o: DatasourceOptions, tlsFiles: { ca?: Buffer; cert?: Buffer; key?: Buffer } = {}) {
    this.#o = o;
    this.#url = queryUrl(o);
    this.#name = o.showURL ? `"${redactUrl(this.#url.toString())}"` : '-datasource.url';
    this.#dispatcher = new Agent({
      connections: o.maxIdleConnections,
      keepAliveTimeout: 60_000,
      connect: {
        ...(tlsFiles.ca === undefined ? {} : { ca: tlsFiles.ca }),
        ...(tlsFiles.cert === undefined ? {} : { cert: tlsFiles.cert }),
        ...(tlsFiles.key === undefined ? {} : { key: tlsFiles.key }),
        ...(o.tls.serverName === '' ? {} : { servername: o.tls.serverName }),
        rejectUnauthorized: !o.tls.insecureSkipVerify,
      },
    });
    const a = o.auth;
    this.#oauth2 = a.kind !== 'oauth2' ? undefined : new OAuth2TokenSource({
      clientID: a.clientID, clientSecret: () => secretValue(a.clientSecret, '-datasource.oauth2.clientSecretFile'), tokenUrl: a.tokenUrl, scopes: a.scopes,
      dispatcher: this.#dispatcher, timeoutMs: o.timeoutMs, now: o.now,
    });
  }

  /** name is how errors name the datasource (its URL only with -datasource.showURL). */
  get name(): string {
    return this.#name;
  }

  /** params are the query args of one instant query of expr at the current time. */
  params(expr: string): URLSearchParams {
    const o = this.#o;
    let t = o.now();
    if (o.queryTimeAlignment && o.evaluationIntervalMs > 0) t -= t % o.evaluationIntervalMs;
    t -= o.lookbackMs;
    const p = new URLSearchParams(this.#url.search);
    p.set('query', expr);
    p.set('time', String(t / 1000));
    const step = o.queryStepMs > 0 ? o.queryStepMs : o.evaluationIntervalMs;
    if (step > 0) p.set('step', `${step / 1000}s`);
    if (o.roundDigits !== undefined) p.set('round_digits', String(o.roundDigits));
    return p;
  }

  /** query runs one instant query and returns the parsed JSON answer; throws naming the datasource. */
  async query(expr: string): Promise<unknown> {
    const url = new URL(this.#url);
    url.search = this.params(expr).toString();
    let res: Dispatcher.ResponseData;
    try {
      res = await request(url, {
        method: 'GET', headers: await this.#headers(), dispatcher: this.#dispatcher, reset: this.#o.disableKeepAlive,
        headersTimeout: this.#o.timeoutMs, bodyTimeout: this.#o.timeoutMs,
      });
    } catch (err) {
      throw new Error(`cannot query ${this.#name}: ${(err as Error).message}`, { cause: err });
    }
    const text = await readLimited(res.body, MAX_ANSWER_BYTES);
    if (res.statusCode === 401 && this.#oauth2 !== undefined) this.#oauth2.invalidate();
    if (res.statusCode !== 200) throw new Error(`cannot query ${this.#name}: status ${res.statusCode}: ${text.slice(0, 300)}`);
    try {
      return JSON.parse(text);
    } catch (err) {
      throw new Error(`cannot read the answer of ${this.#name}: ${(err as Error).message}`, { cause: err });
    }
  }

  async #headers(): Promise<Record<string, string>> {
    const h: Record<string, string> = { accept: 'application/json' };
    for (const p of this.#o.headers) h[p.name.toLowerCase()] = p.value;
    const a = this.#o.auth;
    if (a.kind === 'basic') {
      const pw = await secretValue(a.password, '-datasource.basicAuth.passwordFile');
      h.authorization = `Basic ${Buffer.from(`${a.username}:${pw}`).toString('base64')}`;
    } else if (a.kind === 'bearer') {
      h.authorization = `Bearer ${await secretValue(a.token, '-datasource.bearerTokenFile')}`;
    } else if (this.#oauth2 !== undefined) {
      h.authorization = `Bearer ${await this.#oauth2.token()}`;
    }
    return h;
  }

  async close(): Promise<void> {
    await this.#dispatcher.close();
  }
}

async function readLimited(body: Dispatcher.ResponseData['body'], max: number): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const c of body as AsyncIterable<Buffer>) {
    size += c.length;
    if (size > max) {
      body.destroy();
      throw new Error(`the datasource answer is larger than ${max} bytes`);
    }
    chunks.push(c);
  }
  return Buffer.concat(chunks).toString('utf8');
}
