// Raw REST calls to the real API server for tests that need what the operator's RestKubeClient
// does not offer: dry-run requests, the /scale subresource, and the server's own Status object
// (message and causes) instead of an exception. Authentication comes from the KubeConfig.
import { RequestContext } from '@kubernetes/client-node';
import type { HttpMethod, KubeConfig } from '@kubernetes/client-node';
import { fetch } from 'undici';
import type { Dispatcher } from 'undici';

/** KubeResponse is a status code with the parsed JSON body and the server's warnings. */
export interface KubeResponse {
  readonly status: number;
  readonly body: Record<string, unknown>;
  readonly warnings: string[];
}

/** RequestOptions: query parameters, a JSON body and its content type (default application/json). */
export interface RequestOptions {
  readonly query?: Record<string, string>;
  readonly body?: unknown;
  readonly contentType?: string;
}

/** RawKubeClient sends requests on one pooled connection set; safe for concurrent use. */
export class RawKubeClient {
  readonly #kc: KubeConfig;
  #dispatcher: Dispatcher | undefined;

  constructor(kc: KubeConfig) {
    this.#kc = kc;
  }

  async request(method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE', path: string, opts: RequestOptions = {}): Promise<KubeResponse> {
    const url = new URL(this.#kc.getCurrentCluster()!.server + path);
    for (const [k, v] of Object.entries(opts.query ?? {})) url.searchParams.set(k, v);
    const ctx = new RequestContext(url.toString(), method as HttpMethod);
    await this.#kc.applySecurityAuthentication(ctx);
    this.#dispatcher ??= ctx.getDispatcher() as Dispatcher | undefined;
    const headers: Record<string, string> = { ...(ctx.getHeaders() as Record<string, string>), accept: 'application/json' };
    if (opts.body !== undefined) headers['content-type'] = opts.contentType ?? 'application/json';
    let res;
    try {
      res = await fetch(url, { method, headers, ...(opts.body === undefined ? {} : { body: JSON.stringify(opts.body) }), ...(this.#dispatcher === undefined ? {} : { dispatcher: this.#dispatcher }) });
    } catch (err) {
      throw new Error(`cannot ${method} ${path}: ${(err as Error).message}`, { cause: err });
    }
    const text = await res.text();
    let body: Record<string, unknown>;
    try {
      body = text === '' ? {} : (JSON.parse(text) as Record<string, unknown>);
    } catch (err) {
      throw new Error(`${method} ${path}: status ${res.status} with a body that is not JSON: ${text.slice(0, 200)}`, { cause: err });
    }
    const warnings = (res.headers.get('warning') ?? '').split(/,(?=\s*\d{3} )/).map((w) => w.trim()).filter((w) => w !== '');
    return { status: res.status, body, warnings };
  }

  async close(): Promise<void> {
    await this.#dispatcher?.close();
  }
}

/**
 * invalidLines are the field errors of a 422 Status as "<field>: <message>" lines (kubectl's
 * bullets), from details.causes; other failures give their message as the one line.
 */
export function invalidLines(body: Record<string, unknown>): string[] {
  const causes = (body['details'] as { causes?: { field?: string; message?: string }[] } | undefined)?.causes;
  if (causes === undefined || causes.length === 0) return [String(body['message'] ?? JSON.stringify(body))];
  return causes.map((c) => `${c.field ?? '<nil>'}: ${c.message ?? ''}`);
}
