// ObjectStore: an in-memory Kubernetes API with the semantics controllers depend on —
// resourceVersions, generation, status subresources, optimistic concurrency (409), server-side
// apply, watches that replay from a resourceVersion (410 once compacted), finalizers and
// owner-reference garbage collection. The in-memory KubeClient and the HTTP fake API server
// under test/k8s are both built on it.
import { randomUUID } from 'node:crypto';
import { KubeApiError } from '../errors.ts';
import { typeId } from '../resources.ts';
import type { ResourceType } from '../resources.ts';
import { matches, parseSelector } from '../selector.ts';
import type { Selector } from '../selector.ts';
import type { KubeObject, ObjectKey, OwnerReference } from '../types.ts';
import type { WatchEvent } from '../client.ts';
import { collectGarbage, orphanDependents } from './gc.ts';
import { applyConfig, leafPaths, mergePatch } from './ssa.ts';
import type { FieldPath } from './ssa.ts';
import { WatchHub } from './watch-hub.ts';

/** Admission validates (and may default) an object before it is stored; throw KubeApiError 422 to reject. */
export type Admission = (req: { readonly operation: 'CREATE' | 'UPDATE'; readonly object: KubeObject; readonly old?: KubeObject; readonly subresource?: string }) => KubeObject;

/** StoreOptions: `now` stamps timestamps; historyLimit bounds the watch replay window. */
export interface StoreOptions {
  readonly now?: () => number;
  readonly historyLimit?: number;
  /** gcDelayMs delays owner-reference garbage collection, as the real collector is asynchronous. */
  readonly gcDelayMs?: number;
  /**
   * foreignOwner decides whether an owner this store does not hold still exists (an owner served by
   * another API server): true or false, or undefined when the reference is the store's own to resolve.
   * An owner it cannot tell about yet must count as existing, as the real collector keeps a dependent
   * until it has verified that the owner is gone.
   */
  readonly foreignOwner?: (ref: OwnerReference, namespace: string) => boolean | undefined;
}

/** StoreChange is reported to listeners (simulated controllers) after every write. */
export interface StoreChange {
  readonly type: ResourceType;
  readonly event: WatchEvent;
}

interface Stored {
  obj: KubeObject;
  owners: Map<string, Set<FieldPath>>;
}

interface TypeState {
  readonly type: ResourceType;
  readonly objects: Map<string, Stored>;
  readonly admissions: Admission[];
}

const DNS_SUBDOMAIN = /^[a-z0-9]([-a-z0-9.]*[a-z0-9])?$/;
const clone = <T>(v: T): T => structuredClone(v);
const keyOf = (namespace: string | undefined, name: string) => `${namespace ?? ''}/${name}`;

function withoutVolatile(obj: KubeObject): unknown {
  const { resourceVersion: _rv, managedFields: _mf, generation: _g, ...meta } = obj.metadata;
  return { ...obj, metadata: meta };
}

function specPart(obj: KubeObject): string {
  const { metadata: _m, status: _s, ...rest } = obj;
  return JSON.stringify(rest);
}

/** ObjectStore holds objects of registered types. All methods throw KubeApiError on API errors. */
export class ObjectStore {
  readonly #types = new Map<string, TypeState>();
  readonly #uids = new Map<string, { typeId: string; key: string }>();
  readonly #hub: WatchHub;
  readonly #listeners = new Set<(change: StoreChange) => void>();
  readonly #now: () => number;
  readonly #gcDelayMs: number;
  readonly #foreignOwner: StoreOptions['foreignOwner'];
  #rv = 1;
  #gcTimer: ReturnType<typeof setTimeout> | undefined;

  constructor(opts: StoreOptions = {}) {
    this.#now = opts.now ?? Date.now;
    this.#hub = new WatchHub(opts.historyLimit ?? 20_000);
    this.#gcDelayMs = opts.gcDelayMs ?? 0;
    this.#foreignOwner = opts.foreignOwner;
  }

  /** registerType makes a type servable; admissions run in order on every create and update. */
  registerType(type: ResourceType, ...admissions: Admission[]): void {
    const id = typeId(type);
    const existing = this.#types.get(id);
    if (existing !== undefined) existing.admissions.push(...admissions);
    else this.#types.set(id, { type, objects: new Map(), admissions });
  }

  /** types lists the registered types. */
  types(): ResourceType[] {
    return [...this.#types.values()].map((t) => t.type);
  }

  /** onChange subscribes to every write; returns an unsubscribe function. */
  onChange(listener: (change: StoreChange) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /** resourceVersion is the current (latest) resourceVersion. */
  get resourceVersion(): string {
    return String(this.#rv);
  }

  #state(type: ResourceType): TypeState {
    const state = this.#types.get(typeId(type));
    if (state === undefined) throw new KubeApiError(404, 'NotFound', `the server could not find the requested resource (${typeId(type)})`);
    return state;
  }

  #notFound(type: ResourceType, name: string): KubeApiError {
    return new KubeApiError(404, 'NotFound', `${type.plural}${type.group === '' ? '' : '.' + type.group} "${name}" not found`);
  }

  get(type: ResourceType, key: ObjectKey): KubeObject | undefined {
    const stored = this.#state(type).objects.get(keyOf(type.namespaced ? key.namespace : '', key.name));
    return stored === undefined ? undefined : clone(stored.obj);
  }

  list(type: ResourceType, opts: { namespace?: string | undefined; labelSelector?: string | undefined } = {}): { items: KubeObject[]; resourceVersion: string } {
    const selector = this.#selector(opts.labelSelector);
    const items = [...this.#state(type).objects.values()]
      .map((s) => s.obj)
      .filter((o) => (opts.namespace === undefined || o.metadata.namespace === opts.namespace) && matches(selector, o.metadata.labels))
      .sort((a, b) => keyOf(a.metadata.namespace, a.metadata.name!).localeCompare(keyOf(b.metadata.namespace, b.metadata.name!)))
      .map(clone);
    return { items, resourceVersion: this.resourceVersion };
  }

  #selector(text: string | undefined): Selector {
    try {
      return parseSelector(text ?? '');
    } catch (err) {
      throw new KubeApiError(400, 'BadRequest', `unable to parse requirement: ${(err as Error).message}`, { cause: err });
    }
  }

  #admit(state: TypeState, req: Parameters<Admission>[0]): KubeObject {
    let obj = req.object;
    for (const admit of state.admissions) obj = admit({ ...req, object: obj });
    return obj;
  }

  #checkTarget(type: ResourceType, obj: KubeObject): void {
    const want = type.group === '' ? type.version : `${type.group}/${type.version}`;
    if (obj.apiVersion !== want || obj.kind !== type.kind) {
      throw new KubeApiError(400, 'BadRequest', `object ${obj.apiVersion} ${obj.kind} does not match the resource ${want} ${type.kind}`);
    }
    if (type.namespaced && (obj.metadata.namespace ?? '') === '') throw new KubeApiError(400, 'BadRequest', `${type.kind} "${obj.metadata.name}" needs a namespace`);
  }

  create(type: ResourceType, input: KubeObject, manager = 'unknown', owned?: Set<FieldPath>): KubeObject {
    const state = this.#state(type);
    const obj = clone(input);
    obj.metadata ??= {};
    if ((obj.metadata.name ?? '') === '' && obj.metadata.generateName !== undefined) {
      obj.metadata.name = `${obj.metadata.generateName}${randomUUID().slice(0, 5)}`;
    }
    const name = obj.metadata.name ?? '';
    if (!DNS_SUBDOMAIN.test(name) || name.length > 253) {
      throw new KubeApiError(422, 'Invalid', `${type.kind} "${name}" is invalid: metadata.name: Invalid value: a lowercase RFC 1123 subdomain is required`);
    }
    if (!type.namespaced) delete obj.metadata.namespace;
    this.#checkTarget(type, obj);
    const key = keyOf(obj.metadata.namespace, name);
    if (state.objects.has(key)) throw new KubeApiError(409, 'AlreadyExists', `${type.plural} "${name}" already exists`);
    if (type.hasStatus) delete obj['status'];
    obj.metadata = {
      ...obj.metadata,
      uid: randomUUID(),
      creationTimestamp: new Date(this.#now()).toISOString().replace(/\.\d+Z$/, 'Z'),
      generation: 1,
    };
    delete obj.metadata.deletionTimestamp;
    const admitted = this.#admit(state, { operation: 'CREATE', object: obj });
    const owners = new Map([[manager, owned ?? new Set(leafPaths(withoutVolatile(input)))]]);
    this.#put(state, key, { obj: admitted, owners }, 'ADDED', undefined);
    return clone(admitted);
  }

  /** replace updates an object; a set metadata.resourceVersion must be current (409 otherwise). */
  replace(type: ResourceType, input: KubeObject, subresource?: 'status'): KubeObject {
    const state = this.#state(type);
    const key = keyOf(type.namespaced ? input.metadata.namespace : '', input.metadata.name ?? '');
    const stored = state.objects.get(key);
    if (stored === undefined) throw this.#notFound(type, input.metadata.name ?? '');
    this.#checkTarget(type, { ...input, metadata: { ...input.metadata, namespace: stored.obj.metadata.namespace } });
    const rv = input.metadata.resourceVersion;
    if (rv !== undefined && rv !== '' && rv !== stored.obj.metadata.resourceVersion) {
      throw new KubeApiError(409, 'Conflict', `Operation cannot be fulfilled on ${type.plural} "${input.metadata.name}": the object has been modified; please apply your changes to the latest version and try again`);
    }
    return this.#update(state, key, stored, this.#combine(type, stored.obj, clone(input), subresource), stored.owners, subresource);
  }

  // combine builds the candidate object of an update: a status write keeps everything but the
  // status; a main write keeps the status (when the type has a status subresource).
  #combine(type: ResourceType, current: KubeObject, incoming: KubeObject, subresource: string | undefined): KubeObject {
    if (subresource === 'status') return { ...clone(current), status: incoming['status'] };
    const next: KubeObject = { ...incoming, metadata: { ...incoming.metadata } };
    for (const f of ['uid', 'creationTimestamp', 'namespace', 'name', 'deletionTimestamp', 'generation'] as const) {
      if (current.metadata[f] === undefined) delete next.metadata[f];
      else (next.metadata as Record<string, unknown>)[f] = current.metadata[f];
    }
    if (type.hasStatus) {
      if (current['status'] === undefined) delete next['status'];
      else next['status'] = clone(current['status']);
    }
    return next;
  }

  #update(state: TypeState, key: string, stored: Stored, candidate: KubeObject, owners: Map<string, Set<FieldPath>>, subresource?: string): KubeObject {
    const admitted = this.#admit(state, { operation: 'UPDATE', object: candidate, old: clone(stored.obj), ...(subresource === undefined ? {} : { subresource }) });
    admitted.metadata.generation = (stored.obj.metadata.generation ?? 1) + (specPart(admitted) === specPart(stored.obj) ? 0 : 1);
    admitted.metadata.resourceVersion = stored.obj.metadata.resourceVersion;
    if (JSON.stringify(withoutVolatile(admitted)) === JSON.stringify(withoutVolatile(stored.obj))) {
      stored.owners = owners;
      return clone(stored.obj);
    }
    const previous = stored.obj;
    this.#put(state, key, { obj: admitted, owners }, 'MODIFIED', previous);
    if (admitted.metadata.deletionTimestamp !== undefined && (admitted.metadata.finalizers ?? []).length === 0) {
      this.#remove(state, key);
    }
    return clone(admitted);
  }

  /** apply is server-side apply of `cfg` by `manager`. A missing object is created (main resource only). */
  apply(type: ResourceType, cfg: KubeObject, opts: { manager: string; force: boolean; subresource?: 'status' }): KubeObject {
    const state = this.#state(type);
    const name = cfg.metadata?.name ?? '';
    const key = keyOf(type.namespaced ? cfg.metadata.namespace : '', name);
    const stored = state.objects.get(key);
    const ownerKey = opts.subresource === 'status' ? `${opts.manager}/status` : opts.manager;
    const body = this.#applyBody(type, cfg, opts.subresource);
    if (stored === undefined) {
      if (opts.subresource === 'status') throw this.#notFound(type, name);
      return this.create(type, body as KubeObject, ownerKey, new Set(leafPaths(body)));
    }
    const rv = cfg.metadata.resourceVersion;
    if (rv !== undefined && rv !== stored.obj.metadata.resourceVersion) throw new KubeApiError(409, 'Conflict', `Operation cannot be fulfilled on ${type.plural} "${name}": the object has been modified`);
    const res = applyConfig(stored.obj as unknown as Record<string, unknown>, body, ownerKey, stored.owners);
    if (res.conflicts.length > 0 && !opts.force) {
      const list = res.conflicts.map((c) => `conflict with "${c.manager}": ${JSON.parse(c.path).join('.')}`).join('; ');
      throw new KubeApiError(409, 'Conflict', `Apply failed with ${res.conflicts.length} conflict(s): ${list}`);
    }
    const candidate = res.merged as unknown as KubeObject;
    candidate.metadata = { ...candidate.metadata, uid: stored.obj.metadata.uid!, creationTimestamp: stored.obj.metadata.creationTimestamp! };
    return this.#update(state, key, stored, candidate, res.owners, opts.subresource);
  }

  #applyBody(type: ResourceType, cfg: KubeObject, subresource: string | undefined): Record<string, unknown> {
    this.#checkTarget(type, { ...cfg, metadata: { ...cfg.metadata, namespace: type.namespaced ? cfg.metadata.namespace : undefined } } as KubeObject);
    const { resourceVersion: _rv, uid: _uid, creationTimestamp: _ct, generation: _g, managedFields: _mf, ...meta } = cfg.metadata;
    if (subresource === 'status') return { apiVersion: cfg.apiVersion, kind: cfg.kind, metadata: { name: meta.name, namespace: meta.namespace }, status: cfg['status'] ?? {} };
    const body: Record<string, unknown> = { ...cfg, metadata: meta };
    if (type.hasStatus) delete body['status'];
    return body;
  }

  /** patch applies a JSON merge patch (strategic merge patches are treated the same way). */
  patch(type: ResourceType, key: ObjectKey, patchBody: unknown, subresource?: 'status'): KubeObject {
    const state = this.#state(type);
    const k = keyOf(type.namespaced ? key.namespace : '', key.name);
    const stored = state.objects.get(k);
    if (stored === undefined) throw this.#notFound(type, key.name);
    const patched = mergePatch(stored.obj, patchBody) as KubeObject;
    const rv = (patchBody as { metadata?: { resourceVersion?: string } } | null)?.metadata?.resourceVersion;
    if (rv !== undefined && rv !== stored.obj.metadata.resourceVersion) throw new KubeApiError(409, 'Conflict', `Operation cannot be fulfilled on ${type.plural} "${key.name}": the object has been modified`);
    return this.#update(state, k, stored, this.#combine(type, stored.obj, patched, subresource), stored.owners, subresource);
  }

  /** delete removes an object (or marks it when finalizers remain); false when absent. */
  delete(type: ResourceType, key: ObjectKey, opts: { uid?: string | undefined; propagationPolicy?: string | undefined } = {}): boolean {
    const state = this.#state(type);
    const k = keyOf(type.namespaced ? key.namespace : '', key.name);
    const stored = state.objects.get(k);
    if (stored === undefined) return false;
    if (opts.uid !== undefined && opts.uid !== stored.obj.metadata.uid) {
      throw new KubeApiError(409, 'Conflict', `Precondition failed: UID in precondition: ${opts.uid}, UID in object meta: ${stored.obj.metadata.uid}`);
    }
    if (opts.propagationPolicy === 'Orphan') orphanDependents(this, stored.obj.metadata.uid!);
    if ((stored.obj.metadata.finalizers ?? []).length > 0) {
      if (stored.obj.metadata.deletionTimestamp === undefined) {
        const marked = clone(stored.obj);
        marked.metadata.deletionTimestamp = new Date(this.#now()).toISOString().replace(/\.\d+Z$/, 'Z');
        this.#put(state, k, { obj: marked, owners: stored.owners }, 'MODIFIED', stored.obj);
      }
      return true;
    }
    this.#remove(state, k);
    return true;
  }

  #remove(state: TypeState, key: string): void {
    const stored = state.objects.get(key);
    if (stored === undefined) return;
    state.objects.delete(key);
    this.#uids.delete(stored.obj.metadata.uid!);
    const final = clone(stored.obj);
    this.#rv++;
    final.metadata.resourceVersion = String(this.#rv);
    this.#record(state.type, { type: 'DELETED', object: final }, stored.obj);
    this.#scheduleGc();
  }

  #put(state: TypeState, key: string, stored: Stored, type: 'ADDED' | 'MODIFIED', previous: KubeObject | undefined): void {
    this.#rv++;
    stored.obj.metadata.resourceVersion = String(this.#rv);
    stored.obj.metadata.managedFields = [...stored.owners.keys()].sort().map((m) => ({ manager: m.replace(/\/status$/, ''), operation: 'Apply', subresource: m.endsWith('/status') ? 'status' : undefined }));
    state.objects.set(key, stored);
    this.#uids.set(stored.obj.metadata.uid!, { typeId: typeId(state.type), key });
    this.#record(state.type, { type, object: clone(stored.obj) }, previous);
    // The collector also acts on dependents written after their owner is gone (a controller working
    // from a stale cache), as the real one does when it sees an owner reference it cannot resolve.
    if ((stored.obj.metadata.ownerReferences?.length ?? 0) > 0) this.#scheduleGc();
  }

  #record(type: ResourceType, event: WatchEvent, previous: KubeObject | undefined): void {
    this.#hub.record(this.#rv, typeId(type), event, previous);
    for (const l of [...this.#listeners]) l({ type, event: clone(event) });
  }

  /**
   * watch delivers events after resourceVersion ('' or '0': synthetic ADDED for current objects
   * first). Throws 410 when the version is older than the replay window. Returns a stop function.
   */
  watch(
    type: ResourceType,
    opts: { namespace?: string | undefined; labelSelector?: string | undefined; resourceVersion: string },
    send: (event: WatchEvent) => void,
    close: () => void = () => {},
  ): () => void {
    const id = typeId(this.#state(type).type);
    const spec = { typeId: id, namespace: opts.namespace, selector: this.#selector(opts.labelSelector) };
    return this.#hub.watch(spec, opts.resourceVersion, () => this.list(type, opts).items, send, close);
  }

  /** compact forgets the watch history: watches from older versions now fail with 410. */
  compact(): void {
    this.#hub.compact(this.#rv);
  }

  /** closeWatches ends every open watch (as an API server restart or a load balancer would). */
  closeWatches(): void {
    this.#hub.closeAll();
  }

  /** findByUid returns the object with a uid, if it exists. */
  findByUid(uid: string): KubeObject | undefined {
    const loc = this.#uids.get(uid);
    return loc === undefined ? undefined : clone(this.#types.get(loc.typeId)!.objects.get(loc.key)!.obj);
  }

  /** ownerExists tells whether the owner a reference of an object in `namespace` names still exists. */
  ownerExists(ref: OwnerReference, namespace: string): boolean {
    return this.#foreignOwner?.(ref, namespace) ?? this.findByUid(ref.uid) !== undefined;
  }

  #scheduleGc(): void {
    if (this.#gcTimer !== undefined) return;
    this.#gcTimer = setTimeout(() => {
      this.#gcTimer = undefined;
      this.collectGarbage();
    }, this.#gcDelayMs);
    this.#gcTimer.unref?.();
  }

  /** collectGarbage deletes objects all of whose owners are gone (see gc.ts). */
  collectGarbage(): number {
    return collectGarbage(this);
  }
}
