// Upstream: the fake API server's door to a real Kubernetes API server that serves some API groups
// (FORWARDED_GROUPS) in the fake's place. Requests go out with the kubeconfig's client
// certificate (the real server knows only that admin identity; the fake authorizes its own clients
// first). Several fakes share one real server, each seeing only its own namespaces: lists and
// watches across all namespaces are filtered to the namespaces the fake holds.
//
// src/lib/httpproxy's forward() streams bytes through untouched; here the fake must read the
// watch stream line by line (to filter it) and end forwarded watches itself (dropWatches), so
// this uses undici's request() directly.
import type { IncomingHttpHeaders, ServerResponse } from 'node:http';
import type { RequestOptions } from 'node:https';
import type { KubeConfig } from '@kubernetes/client-node';
import { Pool } from 'undici';
import type { Dispatcher } from 'undici';
import { KubeApiError } from '../../operator/k8s/errors.ts';
import { CUSTOM } from '../../operator/k8s/resources.ts';
import type { ResourceType } from '../../operator/k8s/resources.ts';
import type { APIGroup } from './discovery.ts';

/** FORWARDED_GROUPS are the API groups the real server serves when the fake has an upstream. */
export const FORWARDED_GROUPS: readonly string[] = ['strata.dev', 'apiextensions.k8s.io'];

/** FORWARDED_TYPES are the resources of FORWARDED_GROUPS (for RBAC and path parsing). */
export const FORWARDED_TYPES: readonly ResourceType[] = [
  ...Object.values(CUSTOM),
  { group: 'apiextensions.k8s.io', version: 'v1', kind: 'CustomResourceDefinition', plural: 'customresourcedefinitions', namespaced: false, hasStatus: true },
];

/** isForwardedPath reports whether a request path belongs to a forwarded group (/apis/<group>...). */
export function isForwardedPath(path: string): boolean {
  const group = /^\/apis\/([^/]+)/.exec(path)?.[1];
  return group !== undefined && FORWARDED_GROUPS.includes(group);
}

/** ForwardRequest is one client request to pass on. */
export interface ForwardRequest {
  readonly method: string;
  /** path is the request path with its query string. */
  readonly path: string;
  readonly headers: IncomingHttpHeaders;
  readonly body: string | undefined;
  /** clusterWide marks a list or watch across all namespaces: its items and events are filtered. */
  readonly clusterWide: boolean;
}

const REQUEST_HEADERS = ['accept', 'content-type', 'user-agent'] as const;
const RESPONSE_HEADERS = ['content-type', 'retry-after', 'warning'] as const;

function pick<K extends string>(headers: Record<string, string | string[] | undefined>, names: readonly K[]): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = {};
  for (const n of names) if (headers[n] !== undefined) out[n] = headers[n];
  return out;
}

type Obj = { metadata?: { namespace?: string } } | undefined;

/**
 * splitLines cuts a newline-delimited stream (watch events, one JSON document a line) into
 * complete lines: it returns those of partial + chunk and the unfinished rest to carry over.
 */
export function splitLines(partial: string, chunk: string): { lines: string[]; rest: string } {
  const lines = (partial + chunk).split('\n');
  const rest = lines.pop() ?? '';
  return { lines: lines.filter((l) => l !== ''), rest };
}

/** Upstream forwards requests to one real API server. */
export class Upstream {
  readonly #pool: Pool;
  readonly #visible: (namespace: string) => boolean;
  readonly #watches = new Set<AbortController>();

  /** connect prepares a connection pool with the kubeconfig's server, CA and client certificate. */
  static async connect(kc: KubeConfig, visible: (namespace: string) => boolean): Promise<Upstream> {
    const server = kc.getCurrentCluster()?.server;
    if (server === undefined) throw new Error('cannot forward to the real API server: its kubeconfig names no cluster');
    const tls: RequestOptions = {};
    await kc.applyToHTTPSOptions(tls);
    const connect = { ca: tls.ca, cert: tls.cert, key: tls.key, rejectUnauthorized: tls.rejectUnauthorized ?? true };
    return new Upstream(new Pool(server, { connect }), visible);
  }

  constructor(pool: Pool, visible: (namespace: string) => boolean) {
    this.#pool = pool;
    this.#visible = visible;
  }

  async #send(req: ForwardRequest, signal: AbortSignal | undefined, bodyTimeout: number): Promise<Dispatcher.ResponseData> {
    const headers = pick(req.headers, REQUEST_HEADERS);
    try {
      return await this.#pool.request({ path: req.path, method: req.method as Dispatcher.HttpMethod, headers, body: req.body ?? null, signal, headersTimeout: 30_000, bodyTimeout });
    } catch (err) {
      throw new KubeApiError(503, 'ServiceUnavailable', `cannot ${req.method} ${req.path} on the real API server: ${(err as Error).message}`, { cause: err });
    }
  }

  #visibleObject(obj: Obj): boolean {
    const ns = obj?.metadata?.namespace;
    return ns === undefined || ns === '' || this.#visible(ns);
  }

  // filterList keeps the items (or Table rows) of visible namespaces of a list across namespaces.
  #filterList(text: string): string {
    const list = JSON.parse(text) as { items?: Obj[]; rows?: { object?: Obj }[] };
    if (Array.isArray(list.items)) list.items = list.items.filter((o) => this.#visibleObject(o));
    if (Array.isArray(list.rows)) list.rows = list.rows.filter((r) => this.#visibleObject(r.object));
    return JSON.stringify(list);
  }

  #visibleEvent(line: string): boolean {
    try {
      return this.#visibleObject((JSON.parse(line) as { object?: Obj }).object);
    } catch {
      return true;
    }
  }

  /** forward sends a (non-watch) request and copies the answer to res. Throws KubeApiError 503 when unreachable. */
  async forward(req: ForwardRequest, res: ServerResponse): Promise<void> {
    const up = await this.#send(req, undefined, 30_000);
    let text = await up.body.text();
    if (req.clusterWide && up.statusCode === 200 && req.method === 'GET') text = this.#filterList(text);
    res.writeHead(up.statusCode, pick(up.headers, RESPONSE_HEADERS));
    res.end(text);
  }

  /**
   * watch streams a watch to res, event by event, until the real server, the client or
   * dropWatches ends it; the client's response then ends cleanly, so it resumes as after any
   * ended watch. Throws KubeApiError 503 when the real server cannot be reached.
   */
  async watch(req: ForwardRequest, res: ServerResponse): Promise<void> {
    const ctl = new AbortController();
    this.#watches.add(ctl);
    const abort = () => ctl.abort();
    res.on('close', abort);
    try {
      const up = await this.#send(req, ctl.signal, 0);
      res.writeHead(up.statusCode, pick(up.headers, RESPONSE_HEADERS));
      res.flushHeaders();
      up.body.setEncoding('utf8');
      let partial = '';
      for await (const chunk of up.body as AsyncIterable<string>) {
        const { lines, rest } = splitLines(partial, chunk);
        partial = rest;
        const out = req.clusterWide ? lines.filter((l) => this.#visibleEvent(l)) : lines;
        if (out.length > 0) res.write(`${out.join('\n')}\n`);
      }
      if (partial !== '') res.write(partial);
    } catch (err) {
      // Before the headers: the caller answers with the error. After: the stream just ends.
      if (!res.headersSent && !ctl.signal.aborted) throw err;
    } finally {
      this.#watches.delete(ctl);
      res.off('close', abort);
      if (res.headersSent && !res.writableEnded) res.end();
    }
  }

  /** exists reports whether GET path answers 200 (false on 404). */
  async exists(path: string): Promise<boolean> {
    const up = await this.#send({ method: 'GET', path, headers: { accept: 'application/json' }, body: undefined, clusterWide: false }, undefined, 30_000);
    const text = await up.body.text();
    if (up.statusCode === 200) return true;
    if (up.statusCode === 404) return false;
    throw new KubeApiError(up.statusCode, 'Unknown', `cannot GET ${path} on the real API server: ${text}`);
  }

  /** groups returns the real server's discovery entries of the forwarded groups. */
  async groups(): Promise<APIGroup[]> {
    const up = await this.#send({ method: 'GET', path: '/apis', headers: { accept: 'application/json' }, body: undefined, clusterWide: false }, undefined, 30_000);
    const text = await up.body.text();
    if (up.statusCode !== 200) throw new KubeApiError(502, 'BadGateway', `cannot read /apis of the real API server: ${up.statusCode} ${text}`);
    return ((JSON.parse(text) as { groups?: APIGroup[] }).groups ?? []).filter((g) => FORWARDED_GROUPS.includes(g.name));
  }

  /** dropWatches ends every forwarded watch (clients must resume). */
  dropWatches(): void {
    for (const ctl of this.#watches) ctl.abort();
  }

  /** close ends the watches and the connections. */
  async close(): Promise<void> {
    this.dropWatches();
    await this.#pool.destroy();
  }
}
