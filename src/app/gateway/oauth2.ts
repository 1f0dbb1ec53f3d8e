// OAuth2 client credentials (RFC 6749 §4.4) toward the datasource (-datasource.oauth2.*). The
// token is kept until shortly before it expires. Client credentials go in the Authorization
// header (§2.3.1, preferred); a token endpoint that refuses that form gets them in the body, and
// the form that worked is kept.
import { type Dispatcher, request } from 'undici';

/** OAuth2Options are the -datasource.oauth2.* settings. */
export interface OAuth2Options {
  readonly clientID: string;
  /** clientSecret returns the secret (re-read from -datasource.oauth2.clientSecretFile each time). */
  readonly clientSecret: () => Promise<string>;
  readonly tokenUrl: string;
  readonly scopes: readonly string[];
  readonly dispatcher: Dispatcher;
  readonly timeoutMs: number;
  /** now returns ms since the epoch. */
  readonly now: () => number;
}

// A token is renewed this long before the expiry its endpoint announced.
const EXPIRY_MARGIN_MS = 10_000;

/** OAuth2TokenSource gets and caches access tokens. */
export class OAuth2TokenSource {
  readonly #o: OAuth2Options;
  #token: { value: string; expiresAt: number } | undefined;
  #inflight: Promise<string> | undefined;
  #inBody = false;

  constructor(o: OAuth2Options) {
    this.#o = o;
  }

  /** token returns a valid access token, fetching one when needed. */
  token(): Promise<string> {
    const t = this.#token;
    if (t !== undefined && t.expiresAt > this.#o.now()) return Promise.resolve(t.value);
    this.#inflight ??= this.#fetch().finally(() => {
      this.#inflight = undefined;
    });
    return this.#inflight;
  }

  /** invalidate forgets the token (the datasource refused it). */
  invalidate(): void {
    this.#token = undefined;
  }

  async #fetch(): Promise<string> {
    const secret = await this.#o.clientSecret();
    let r = await this.#post(secret, this.#inBody);
    if (!this.#inBody && (r.status === 400 || r.status === 401)) {
      const retry = await this.#post(secret, true);
      if (retry.status === 200) this.#inBody = true;
      r = retry;
    }
    if (r.status !== 200) throw new Error(`cannot get an OAuth2 token from -datasource.oauth2.tokenUrl: status ${r.status}: ${r.text.slice(0, 200)}`);
    let doc: { access_token?: unknown; expires_in?: unknown };
    try {
      doc = JSON.parse(r.text) as typeof doc;
    } catch (err) {
      throw new Error(`cannot read the OAuth2 token answer of -datasource.oauth2.tokenUrl: ${(err as Error).message}`, { cause: err });
    }
    if (typeof doc.access_token !== 'string' || doc.access_token === '') throw new Error('the OAuth2 token answer of -datasource.oauth2.tokenUrl has no "access_token"');
    const ttl = typeof doc.expires_in === 'number' && doc.expires_in > 0 ? doc.expires_in * 1000 : Infinity;
    this.#token = { value: doc.access_token, expiresAt: this.#o.now() + Math.max(0, ttl - EXPIRY_MARGIN_MS) };
    return doc.access_token;
  }

  async #post(secret: string, inBody: boolean): Promise<{ status: number; text: string }> {
    const o = this.#o;
    const form = new URLSearchParams({ grant_type: 'client_credentials' });
    if (o.scopes.length > 0) form.set('scope', o.scopes.join(' '));
    const headers: Record<string, string> = { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' };
    if (inBody) {
      form.set('client_id', o.clientID);
      form.set('client_secret', secret);
    } else {
      headers.authorization = `Basic ${Buffer.from(`${encodeURIComponent(o.clientID)}:${encodeURIComponent(secret)}`).toString('base64')}`;
    }
    const res = await request(o.tokenUrl, { method: 'POST', headers, body: form.toString(), dispatcher: o.dispatcher, headersTimeout: o.timeoutMs, bodyTimeout: o.timeoutMs });
    return { status: res.statusCode, text: await res.body.text() };
  }
}
