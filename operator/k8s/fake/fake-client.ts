// FakeKubeClient: a KubeClient over an in-memory ObjectStore, for unit tests of controllers.
import type { ApplyOptions, DeleteOptions, KubeClient, ListOptions, ListResult, WatchEvent, WatchOptions } from '../client.ts';
import { resourceTypeOf } from '../resources.ts';
import type { ResourceType } from '../resources.ts';
import type { KubeObject, ObjectKey } from '../types.ts';
import { evictPod } from './eviction.ts';
import type { ObjectStore } from './store.ts';

/** FakeKubeClient answers asynchronously (like a network client) from an ObjectStore. */
export class FakeKubeClient implements KubeClient {
  readonly store: ObjectStore;
  /** calls counts requests as "verb resource" (e.g. "apply statefulsets.apps"), for assertions. */
  readonly calls: string[] = [];

  constructor(store: ObjectStore) {
    this.store = store;
  }

  #log(verb: string, type: ResourceType): void {
    this.calls.push(`${verb} ${type.group === '' ? type.plural : `${type.plural}.${type.group}`}`);
  }

  async get(type: ResourceType, key: ObjectKey): Promise<KubeObject | undefined> {
    this.#log('get', type);
    return this.store.get(type, key);
  }

  async list(type: ResourceType, opts: ListOptions): Promise<ListResult> {
    this.#log('list', type);
    return this.store.list(type, opts);
  }

  watch(type: ResourceType, opts: WatchOptions, onEvent: (event: WatchEvent) => void): Promise<void> {
    this.#log('watch', type);
    return new Promise<void>((resolve, reject) => {
      let stop: () => void = () => {};
      const finish = () => {
        stop();
        resolve();
      };
      try {
        // Deliver on a later tick so the caller never re-enters the store from inside a write.
        stop = this.store.watch(type, opts, (e) => queueMicrotask(() => !opts.signal.aborted && onEvent(e)), () => queueMicrotask(finish));
      } catch (err) {
        reject(err);
        return;
      }
      if (opts.signal.aborted) finish();
      opts.signal.addEventListener('abort', finish, { once: true });
    });
  }

  async apply(obj: KubeObject, opts: ApplyOptions): Promise<KubeObject> {
    const type = resourceTypeOf(obj.apiVersion, obj.kind);
    this.#log('apply', type);
    return this.store.apply(type, obj, { manager: opts.fieldManager, force: opts.force });
  }

  async applyStatus(obj: KubeObject, opts: ApplyOptions): Promise<KubeObject> {
    const type = resourceTypeOf(obj.apiVersion, obj.kind);
    this.#log('apply-status', type);
    return this.store.apply(type, obj, { manager: opts.fieldManager, force: opts.force, subresource: 'status' });
  }

  async create(obj: KubeObject): Promise<KubeObject> {
    const type = resourceTypeOf(obj.apiVersion, obj.kind);
    this.#log('create', type);
    return this.store.create(type, obj);
  }

  async replace(obj: KubeObject): Promise<KubeObject> {
    const type = resourceTypeOf(obj.apiVersion, obj.kind);
    this.#log('replace', type);
    return this.store.replace(type, obj);
  }

  async delete(type: ResourceType, key: ObjectKey, opts: DeleteOptions = {}): Promise<boolean> {
    this.#log('delete', type);
    return this.store.delete(type, key, opts);
  }

  async evict(key: ObjectKey): Promise<void> {
    this.calls.push('evict pods');
    evictPod(this.store, key);
  }
}
