// Informer: list + watch one resource type into a local cache and report changes. Watches
// resume from the last seen resourceVersion when the server ends them; a 410 (version too old)
// triggers a fresh list whose differences are reported as events, so nothing is missed.
import type { KubeClient } from '../k8s/client.ts';
import { isGone } from '../k8s/errors.ts';
import type { ResourceType } from '../k8s/resources.ts';
import { keyString, objectKey } from '../k8s/types.ts';
import type { KubeObject, ObjectKey } from '../k8s/types.ts';
import { sleep } from '../runtime/clock.ts';
import type { Clock } from '../runtime/clock.ts';
import type { Logger } from '../runtime/logger.ts';
import type { BackoffOptions } from './work-queue.ts';

/** InformerEvent is a cache change; RESYNC re-reports a cached object periodically. */
export interface InformerEvent {
  readonly type: 'ADDED' | 'MODIFIED' | 'DELETED' | 'RESYNC';
  readonly object: KubeObject;
  readonly old?: KubeObject;
}

/** InformerOptions configure one informer; namespaces undefined means all namespaces. */
export interface InformerOptions {
  readonly client: KubeClient;
  readonly type: ResourceType;
  readonly namespaces: readonly string[] | undefined;
  readonly labelSelector?: string;
  readonly log: Logger;
  readonly clock: Clock;
  readonly resyncMs: number;
  readonly backoff: BackoffOptions;
  readonly watchTimeoutSeconds: number;
}

/** Informer keeps a cache of one type. Handlers run synchronously; they must not block. */
export class Informer {
  readonly type: ResourceType;
  readonly #opts: InformerOptions;
  readonly #cache = new Map<string, KubeObject>();
  readonly #handlers: ((e: InformerEvent) => void)[] = [];
  readonly #synced = new Set<string>();
  readonly #scopes: readonly (string | undefined)[];
  #syncWaiters: (() => void)[] = [];

  constructor(opts: InformerOptions) {
    this.#opts = opts;
    this.type = opts.type;
    this.#scopes = opts.type.namespaced && opts.namespaces !== undefined ? [...opts.namespaces] : [undefined];
  }

  on(handler: (e: InformerEvent) => void): void {
    this.#handlers.push(handler);
  }

  get(key: ObjectKey): KubeObject | undefined {
    return this.#cache.get(keyString(key));
  }

  /** list returns cached objects, optionally of one namespace. */
  list(namespace?: string): KubeObject[] {
    const all = [...this.#cache.values()];
    return namespace === undefined ? all : all.filter((o) => o.metadata.namespace === namespace);
  }

  /** synced is true once every scope has been listed at least once. */
  get synced(): boolean {
    return this.#synced.size === this.#scopes.length;
  }

  /** waitForSync resolves when synced (or when signal aborts). */
  waitForSync(signal: AbortSignal): Promise<void> {
    if (this.synced || signal.aborted) return Promise.resolve();
    return new Promise((resolve) => {
      this.#syncWaiters.push(resolve);
      signal.addEventListener('abort', () => resolve(), { once: true });
    });
  }

  #emit(e: InformerEvent): void {
    for (const h of this.#handlers) h(e);
  }

  #inScope(obj: KubeObject, scope: string | undefined): boolean {
    return scope === undefined || obj.metadata.namespace === scope;
  }

  // replace installs a fresh list for a scope and reports what changed since the cache was filled.
  #replace(scope: string | undefined, items: KubeObject[]): void {
    const fresh = new Map(items.map((o) => [keyString(objectKey(o)), o]));
    for (const [k, old] of [...this.#cache]) {
      if (this.#inScope(old, scope) && !fresh.has(k)) {
        this.#cache.delete(k);
        this.#emit({ type: 'DELETED', object: old });
      }
    }
    for (const [k, obj] of fresh) {
      const old = this.#cache.get(k);
      this.#cache.set(k, obj);
      if (old === undefined) this.#emit({ type: 'ADDED', object: obj });
      else if (old.metadata.resourceVersion !== obj.metadata.resourceVersion) this.#emit({ type: 'MODIFIED', object: obj, old });
    }
    this.#synced.add(String(scope));
    if (this.synced) for (const w of this.#syncWaiters.splice(0)) w();
  }

  #apply(type: 'ADDED' | 'MODIFIED' | 'DELETED', obj: KubeObject): void {
    const k = keyString(objectKey(obj));
    const old = this.#cache.get(k);
    if (type === 'DELETED') {
      this.#cache.delete(k);
      this.#emit({ type, object: obj });
      return;
    }
    this.#cache.set(k, obj);
    this.#emit(old === undefined ? { type: 'ADDED', object: obj } : { type: 'MODIFIED', object: obj, old });
  }

  /** run lists and watches until signal aborts. Never rejects. */
  async run(signal: AbortSignal): Promise<void> {
    const resync = this.#opts.resyncMs > 0 ? setInterval(() => this.#resync(), this.#opts.resyncMs) : undefined;
    resync?.unref();
    try {
      await Promise.all(this.#scopes.map((scope) => this.#runScope(scope, signal)));
    } finally {
      if (resync !== undefined) clearInterval(resync);
    }
  }

  #resync(): void {
    for (const obj of this.#cache.values()) this.#emit({ type: 'RESYNC', object: obj });
  }

  async #runScope(scope: string | undefined, signal: AbortSignal): Promise<void> {
    const { client, type, labelSelector, log, clock, backoff } = this.#opts;
    const sel = labelSelector === undefined ? {} : { labelSelector };
    const ns = scope === undefined ? {} : { namespace: scope };
    let failures = 0;
    let resourceVersion: string | undefined;
    while (!signal.aborted) {
      try {
        if (resourceVersion === undefined) {
          const listed = await client.list(type, { ...ns, ...sel });
          if (signal.aborted) return;
          this.#replace(scope, listed.items);
          resourceVersion = listed.resourceVersion;
        }
        await client.watch(type, { ...ns, ...sel, resourceVersion, timeoutSeconds: this.#opts.watchTimeoutSeconds, signal }, (e) => {
          resourceVersion = e.object.metadata.resourceVersion ?? resourceVersion;
          if (e.type !== 'BOOKMARK') this.#apply(e.type, e.object);
        });
        failures = 0;
      } catch (err) {
        if (signal.aborted) return;
        if (isGone(err)) {
          log.info({ resource: type.plural, namespace: scope }, 'watch expired; listing again');
          resourceVersion = undefined;
          continue;
        }
        const delay = Math.min(backoff.baseMs * 2 ** failures++, backoff.maxMs);
        log.warn({ resource: type.plural, namespace: scope, err, retryInMs: delay }, 'cannot list or watch');
        // A failed list leaves resourceVersion undefined, so the next round lists again.
        await sleep(clock, delay, signal);
      }
    }
  }
}
