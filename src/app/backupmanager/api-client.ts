// The HTTP client the CLI commands use to call the backup manager API at -apiURL.

import type { BackupRecord, RestoreMark } from '../../lib/backup/index.ts';
import { redactUrl } from '../../lib/logger/index.ts';

/** ApiClientOptions configure an ApiClient. */
export interface ApiClientOptions {
  /** apiUrl is the server root, as http://127.0.0.1:8300 (a path prefix such as /bm is kept). */
  readonly apiUrl: string;
  /** basicAuth is sent unless the URL carries its own user:password. */
  readonly basicAuth?: { readonly username: string; readonly password: string } | undefined;
  /** timeoutMs bounds each request; default 60 s. */
  readonly timeoutMs?: number;
}

/** ApiClient calls the backup manager API; failures throw an Error carrying the server's message. */
export class ApiClient {
  readonly #base: URL;
  readonly #headers: Record<string, string> = {};
  readonly #timeoutMs: number;

  constructor(o: ApiClientOptions) {
    const base = new URL(o.apiUrl);
    let auth = o.basicAuth;
    if (base.username !== '' || base.password !== '') {
      auth = { username: decodeURIComponent(base.username), password: decodeURIComponent(base.password) };
      base.username = '';
      base.password = '';
    }
    if (auth) this.#headers.authorization = `Basic ${Buffer.from(`${auth.username}:${auth.password}`).toString('base64')}`;
    if (!base.pathname.endsWith('/')) base.pathname += '/';
    this.#base = base;
    this.#timeoutMs = o.timeoutMs ?? 60_000;
  }

  /** listBackups is GET /api/v1/backups. */
  listBackups(): Promise<BackupRecord[]> {
    return this.#call('GET', 'api/v1/backups') as Promise<BackupRecord[]>;
  }

  /** setLocked is PUT /api/v1/backups/<name> with {locked}. */
  setLocked(name: string, locked: boolean): Promise<BackupRecord> {
    return this.#call('PUT', `api/v1/backups/${name.split('/').map(encodeURIComponent).join('/')}`, { locked }) as Promise<BackupRecord>;
  }

  /** createRestoreMark is POST /api/v1/restore with {backup}. */
  createRestoreMark(backup: string): Promise<RestoreMark> {
    return this.#call('POST', 'api/v1/restore', { backup }) as Promise<RestoreMark>;
  }

  /** getRestoreMark is GET /api/v1/restore; undefined when the server has no mark (404). */
  async getRestoreMark(): Promise<RestoreMark | undefined> {
    return (await this.#call('GET', 'api/v1/restore', undefined, true)) as RestoreMark | undefined;
  }

  /** deleteRestoreMark is DELETE /api/v1/restore. */
  async deleteRestoreMark(): Promise<void> {
    await this.#call('DELETE', 'api/v1/restore');
  }

  async #call(method: string, path: string, body?: unknown, notFoundIsUndefined = false): Promise<unknown> {
    const url = new URL(path, this.#base);
    const what = `${method} ${redactUrl(url.toString())}`;
    const headers = body === undefined ? this.#headers : { ...this.#headers, 'content-type': 'application/json' };
    let res: Response;
    let text: string;
    try {
      res = await fetch(url, { method, headers, body: body === undefined ? undefined : JSON.stringify(body), signal: AbortSignal.timeout(this.#timeoutMs) });
      text = await res.text();
    } catch (err) {
      const cause = (err as Error & { cause?: { code?: string; message?: string } }).cause;
      throw new Error(`cannot call ${what}: ${(err as Error).message}${cause ? ` (${cause.code ?? cause.message})` : ''}`, { cause: err });
    }
    if (res.status === 404 && notFoundIsUndefined) return undefined;
    if (!res.ok) throw new Error(`${what} failed with HTTP ${res.status}: ${serverMessage(text)}`);
    try {
      return JSON.parse(text) as unknown;
    } catch (err) {
      throw new Error(`cannot parse the answer of ${what}: ${JSON.stringify(text.slice(0, 200))}`, { cause: err });
    }
  }
}

// serverMessage extracts `error` from a JSON error body, or returns the text as it is.
function serverMessage(text: string): string {
  try {
    const v = JSON.parse(text) as { error?: unknown };
    if (typeof v.error === 'string') return v.error;
  } catch {
    // not JSON: a proxy or the server's plain-text 401/404
  }
  return text.trim().slice(0, 500);
}
