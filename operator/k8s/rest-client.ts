// RestKubeClient: KubeClient over the Kubernetes REST API. @kubernetes/client-node supplies the
// kubeconfig / in-cluster configuration, authentication (tokens, client certs, exec plugins)
// and watch streaming; requests are plain JSON so objects stay plain data (no model classes).
import { HttpMethod, KubeConfig, RequestContext, Watch } from '@kubernetes/client-node';
import { fetch } from 'undici';
import type { Dispatcher } from 'undici';
import type { ApplyOptions, DeleteOptions, KubeClient, ListOptions, ListResult, WatchEvent, WatchOptions } from './client.ts';
import { KubeApiError } from './errors.ts';
import { defaultKubeConfigSource } from './kubeconfig-source.ts';
import { apiVersionOf, resourceTypeOf } from './resources.ts';
import type { ResourceType } from './resources.ts';
import type { KubeObject, ObjectKey } from './types.ts';

/**
 * loadKubeConfig reads a kubeconfig file, or the default chain (KUBECONFIG, ~/.kube/config,
 * in-cluster); throws naming what it looked at when the chain finds nothing.
 */
export function loadKubeConfig(path: string | undefined): KubeConfig {
  const kc = new KubeConfig();
  if (path !== undefined && path !== '') kc.loadFromFile(path);
  else {
    defaultKubeConfigSource();
    kc.loadFromDefault();
  }
  if (kc.getCurrentCluster() === null) throw new Error('cannot find a Kubernetes cluster in the kubeconfig or in-cluster environment');
  return kc;
}

/** resourcePath is the REST path of a collection (name undefined) or one object. */
export function resourcePath(type: ResourceType, namespace: string | undefined, name?: string): string {
  const base = type.group === '' ? `/api/${type.version}` : `/apis/${type.group}/${type.version}`;
  const ns = type.namespaced && namespace !== undefined && namespace !== '' ? `/namespaces/${encodeURIComponent(namespace)}` : '';
  return `${base}${ns}/${type.plural}${name === undefined ? '' : `/${encodeURIComponent(name)}`}`;
}

interface RequestOptions {
  readonly query?: Record<string, string | undefined>;
  readonly body?: unknown;
  readonly contentType?: string;
}

/** RestKubeClient talks to an API server; safe for concurrent use. */
export class RestKubeClient implements KubeClient {
  readonly #kc: KubeConfig;
  readonly #server: string;
  #dispatcher: Dispatcher | undefined;

  constructor(kc: KubeConfig) {
    this.#kc = kc;
    this.#server = kc.getCurrentCluster()!.server.replace(/\/+$/, '');
  }

  async #request(method: string, path: string, opts: RequestOptions = {}): Promise<{ status: number; body: unknown }> {
    const url = new URL(this.#server + path);
    for (const [k, v] of Object.entries(opts.query ?? {})) if (v !== undefined) url.searchParams.set(k, v);
    const ctx = new RequestContext(url.toString(), method as HttpMethod);
    // Authentication is applied per request (tokens rotate); the connection pool is reused.
    await this.#kc.applySecurityAuthentication(ctx);
    const fresh = ctx.getDispatcher() as Dispatcher | undefined;
    if (this.#dispatcher === undefined) this.#dispatcher = fresh;
    else if (fresh !== undefined && fresh !== this.#dispatcher) void fresh.close();
    const headers: Record<string, string> = { ...(ctx.getHeaders() as Record<string, string>), accept: 'application/json' };
    if (opts.body !== undefined) headers['content-type'] = opts.contentType ?? 'application/json';
    let res;
    try {
      res = await fetch(url, {
        method,
        headers,
        ...(opts.body === undefined ? {} : { body: JSON.stringify(opts.body) }),
        ...(this.#dispatcher === undefined ? {} : { dispatcher: this.#dispatcher }),
      });
    } catch (err) {
      throw new Error(`cannot ${method} ${path}: ${(err as Error).message}`, { cause: err });
    }
    const text = await res.text();
    let body: unknown = undefined;
    try {
      body = text === '' ? undefined : JSON.parse(text);
    } catch {
      body = text;
    }
    if (res.status >= 200 && res.status < 300) return { status: res.status, body };
    const st = (typeof body === 'object' && body !== null ? body : {}) as { reason?: string; message?: string };
    throw new KubeApiError(res.status, st.reason ?? 'Unknown', `${method} ${path}: ${st.message ?? (typeof body === 'string' ? body : res.statusText)}`);
  }

  async get(type: ResourceType, key: ObjectKey): Promise<KubeObject | undefined> {
    try {
      return (await this.#request('GET', resourcePath(type, key.namespace, key.name))).body as KubeObject;
    } catch (err) {
      if (err instanceof KubeApiError && err.status === 404) return undefined;
      throw err;
    }
  }

  async list(type: ResourceType, opts: ListOptions): Promise<ListResult> {
    const res = await this.#request('GET', resourcePath(type, opts.namespace), { query: { labelSelector: opts.labelSelector } });
    const body = res.body as { items?: KubeObject[]; metadata?: { resourceVersion?: string } };
    // List items carry no apiVersion/kind; restore them so objects look the same everywhere.
    const items = (body.items ?? []).map((o) => ({ ...o, apiVersion: apiVersionOf(type), kind: type.kind }));
    return { items, resourceVersion: body.metadata?.resourceVersion ?? '' };
  }

  async watch(type: ResourceType, opts: WatchOptions, onEvent: (event: WatchEvent) => void): Promise<void> {
    const path = resourcePath(type, opts.namespace);
    const query = { resourceVersion: opts.resourceVersion, labelSelector: opts.labelSelector, timeoutSeconds: opts.timeoutSeconds, allowWatchBookmarks: true };
    return new Promise<void>((resolve, reject) => {
      let controller: AbortController | undefined;
      let failed = false;
      const onAbort = () => controller?.abort();
      const finish = (err: unknown) => {
        opts.signal.removeEventListener('abort', onAbort);
        if (failed) return;
        const name = (err as { name?: string } | null)?.name;
        // client-node ends idle watches with a TimeoutError; resuming is the normal reaction.
        if (err === null || err === undefined || opts.signal.aborted || name === 'TimeoutError' || name === 'AbortError') resolve();
        else {
          const status = (err as { statusCode?: number }).statusCode;
          reject(status === undefined ? new Error(`cannot watch ${path}: ${(err as Error).message}`, { cause: err }) : new KubeApiError(status, 'WatchFailed', `watch ${path}: ${(err as Error).message}`));
        }
      };
      const onLine = (phase: string, obj: unknown) => {
        if (phase === 'ERROR') {
          const st = obj as { code?: number; reason?: string; message?: string };
          failed = true;
          controller?.abort();
          reject(new KubeApiError(st.code ?? 500, st.reason ?? 'WatchError', `watch ${path}: ${st.message ?? 'error event'}`));
          return;
        }
        if (phase === 'ADDED' || phase === 'MODIFIED' || phase === 'DELETED' || phase === 'BOOKMARK') onEvent({ type: phase, object: obj as KubeObject });
      };
      new Watch(this.#kc)
        .watch(path, query, onLine, finish)
        .then((c) => {
          controller = c;
          if (opts.signal.aborted) c.abort();
          else opts.signal.addEventListener('abort', onAbort, { once: true });
        })
        .catch(finish);
    });
  }

  #objectPath(obj: KubeObject, sub?: string): string {
    const type = resourceTypeOf(obj.apiVersion, obj.kind);
    return resourcePath(type, obj.metadata.namespace, obj.metadata.name) + (sub === undefined ? '' : `/${sub}`);
  }

  async apply(obj: KubeObject, opts: ApplyOptions): Promise<KubeObject> {
    const q = { fieldManager: opts.fieldManager, force: String(opts.force) };
    return (await this.#request('PATCH', this.#objectPath(obj), { query: q, body: obj, contentType: 'application/apply-patch+yaml' })).body as KubeObject;
  }

  async applyStatus(obj: KubeObject, opts: ApplyOptions): Promise<KubeObject> {
    const q = { fieldManager: opts.fieldManager, force: String(opts.force) };
    return (await this.#request('PATCH', this.#objectPath(obj, 'status'), { query: q, body: obj, contentType: 'application/apply-patch+yaml' })).body as KubeObject;
  }

  async create(obj: KubeObject): Promise<KubeObject> {
    const type = resourceTypeOf(obj.apiVersion, obj.kind);
    return (await this.#request('POST', resourcePath(type, obj.metadata.namespace), { body: obj })).body as KubeObject;
  }

  async replace(obj: KubeObject): Promise<KubeObject> {
    return (await this.#request('PUT', this.#objectPath(obj), { body: obj })).body as KubeObject;
  }

  async delete(type: ResourceType, key: ObjectKey, opts: DeleteOptions = {}): Promise<boolean> {
    const body: Record<string, unknown> = { apiVersion: 'v1', kind: 'DeleteOptions' };
    if (opts.propagationPolicy !== undefined) body['propagationPolicy'] = opts.propagationPolicy;
    if (opts.uid !== undefined) body['preconditions'] = { uid: opts.uid };
    try {
      await this.#request('DELETE', resourcePath(type, key.namespace, key.name), { body });
      return true;
    } catch (err) {
      if (err instanceof KubeApiError && err.status === 404) return false;
      throw err;
    }
  }

  async evict(key: ObjectKey): Promise<void> {
    const body = { apiVersion: 'policy/v1', kind: 'Eviction', metadata: { name: key.name, namespace: key.namespace } };
    await this.#request('POST', `/api/v1/namespaces/${encodeURIComponent(key.namespace)}/pods/${encodeURIComponent(key.name)}/eviction`, { body });
  }

  /** close releases pooled connections. */
  async close(): Promise<void> {
    await this.#dispatcher?.close();
  }
}
