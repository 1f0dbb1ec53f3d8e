import type { FastifyReply, FastifyRequest } from 'fastify';
import { lazyImport } from '../../lib/process/lazy-import.ts';
import type { PoolRegistry } from '../../lib/httpproxy/index.ts';
import type { ReadContext } from './request-context.ts';

// Grafana reads alerting rules and alerts from its Prometheus data source (/api/v1/rules,
// /api/v1/alerts). Strata evaluates no rules; a rule evaluator such as vmalert does. With
// -vmalert.proxyURL those calls are proxied to it, as VictoriaMetrics does; without, they answer
// the empty lists Grafana expects from a server with no rules.

// The proxy (lib/httpproxy with undici, ~130 modules) is loaded at the first proxied request, not
// when the server starts: most servers have no vmalert, and a start loads that much less.
const loadHttpProxy = lazyImport(() => import('../../lib/httpproxy/index.ts'));

/** VmalertProxy forwards requests to one rule evaluator, streaming its answers back. */
export class VmalertProxy {
  /** url is the evaluator's base URL as configured. */
  readonly url: string;
  readonly #origin: string;
  readonly #basePath: string;
  readonly #timeoutMs: number;
  #pools: PoolRegistry | undefined;

  /** timeoutMs bounds the wait for the answer's headers and between its chunks. Throws for a URL it cannot use. */
  constructor(url: string, timeoutMs: number) {
    let u: URL;
    try {
      u = new URL(url);
    } catch (err) {
      throw new Error(`cannot use -vmalert.proxyURL "${url}": not a URL`, { cause: err });
    }
    if (u.protocol !== 'http:' && u.protocol !== 'https:') throw new Error(`cannot use -vmalert.proxyURL "${url}": the scheme must be http or https`);
    if (u.search !== '' || u.hash !== '' || u.username !== '' || u.password !== '') throw new Error(`cannot use -vmalert.proxyURL "${url}": it must have no query, fragment or credentials`);
    this.url = url;
    this.#origin = u.origin;
    this.#basePath = u.pathname.replace(/\/+$/, '');
    this.#timeoutMs = timeoutMs;
  }

  /**
   * forward proxies the request to `<url><apiPath>` with its query string (a form body is re-encoded,
   * since the read routes have parsed it), answering 502 when the evaluator cannot be reached.
   */
  async forward(c: ReadContext, req: FastifyRequest, reply: FastifyReply, apiPath: string): Promise<void> {
    reply.hijack();
    const res = reply.raw;
    // The read deadline, or the client leaving, ends the upstream request too.
    const onAbort = () => res.destroy();
    c.signal.addEventListener('abort', onAbort, { once: true });
    try {
      const { forward, NO_EXTRA_HEADERS, PoolRegistry, upstreamRequestHeaders } = await loadHttpProxy();
      this.#pools ??= new PoolRegistry({ connectionsPerOrigin: 16, idleTimeoutMs: 60_000, connectTimeoutMs: 5_000 });
      const query = req.url.includes('?') ? req.url.slice(req.url.indexOf('?')) : '';
      // The body was parsed by the read routes: it is sent re-encoded (or not at all), with its own headers.
      const up = upstreamRequestHeaders(req.raw.rawHeaders, req.ip, NO_EXTRA_HEADERS);
      const flat: string[] = [];
      for (let i = 0; i < up.length; i += 2) if (!isBodyHeader(up[i]!)) flat.push(up[i]!, up[i + 1]!);
      let body: Buffer | null = null;
      if (req.method === 'POST' && isRecord(req.body)) {
        body = Buffer.from(new URLSearchParams(formPairs(req.body)).toString());
        flat.push('content-type', 'application/x-www-form-urlencoded', 'content-length', String(body.length));
      }
      const r = await forward(this.#pools.get(this.#origin), { path: `${this.#basePath}${apiPath}${query}`, method: req.method, headers: flat, body, timeoutMs: this.#timeoutMs }, res);
      if (r.kind === 'failed' && !res.headersSent && !res.destroyed) {
        c.deps.logger.warn({ err: r.error }, `cannot proxy ${req.method} ${apiPath} to vmalert at "${this.url}"`);
        const text = JSON.stringify({ status: 'error', errorType: 'unavailable', error: `cannot proxy the request to vmalert at "${this.url}" (-vmalert.proxyURL): ${r.error.message}` });
        res.writeHead(502, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) }).end(text);
      }
    } finally {
      c.signal.removeEventListener('abort', onAbort);
    }
  }

  /** close closes the connections to the evaluator. */
  async close(): Promise<void> {
    await this.#pools?.close();
  }
}

const isBodyHeader = (name: string): boolean => {
  const n = name.toLowerCase();
  return n === 'content-length' || n === 'content-type';
};

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Buffer.isBuffer(v);
}

function formPairs(o: Record<string, unknown>): [string, string][] {
  const out: [string, string][] = [];
  for (const [k, v] of Object.entries(o)) for (const x of Array.isArray(v) ? v : [v]) out.push([k, String(x)]);
  return out;
}

/** handleRules serves /api/v1/rules: proxied with -vmalert.proxyURL, else no rule groups. */
export async function handleRules(c: ReadContext, req: FastifyRequest, reply: FastifyReply): Promise<object | undefined> {
  if (c.deps.vmalert === undefined) return { status: 'success', data: { groups: [] } };
  await c.deps.vmalert.forward(c, req, reply, '/api/v1/rules');
  return undefined;
}

/** handleAlerts serves /api/v1/alerts: proxied with -vmalert.proxyURL, else no alerts. */
export async function handleAlerts(c: ReadContext, req: FastifyRequest, reply: FastifyReply): Promise<object | undefined> {
  if (c.deps.vmalert === undefined) return { status: 'success', data: { alerts: [] } };
  await c.deps.vmalert.forward(c, req, reply, '/api/v1/alerts');
  return undefined;
}
