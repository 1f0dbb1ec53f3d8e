// DependencyIndex remembers which objects each queue item read during its last reconcile, so
// a change to any of them (a referenced Secret, a selected AuthProxyUser, a TSDB resource a
// gateway points at) queues the item again.
import { typeId } from '../k8s/resources.ts';
import type { ResourceType } from '../k8s/resources.ts';
import type { KubeObject, ObjectKey } from '../k8s/types.ts';
import type { Reader } from '../reconcile/context.ts';

/** Dependency is one object read, or a whole namespace ("*") of a type listed. */
interface Dependency {
  readonly type: string;
  readonly namespace: string;
  readonly name: string;
}

const depKey = (d: Dependency) => `${d.type}|${d.namespace}|${d.name}`;

/** DependencyIndex maps dependencies to the queue items that read them. Not thread-safe by design: one event loop. */
export class DependencyIndex {
  readonly #byItem = new Map<string, Set<string>>();
  readonly #byDep = new Map<string, Set<string>>();

  /** record replaces the dependencies of an item. */
  record(item: string, deps: Iterable<string>): void {
    this.forget(item);
    const set = new Set(deps);
    this.#byItem.set(item, set);
    for (const d of set) {
      let items = this.#byDep.get(d);
      if (items === undefined) this.#byDep.set(d, (items = new Set()));
      items.add(item);
    }
  }

  /** forget drops an item (its resource is gone). */
  forget(item: string): void {
    for (const d of this.#byItem.get(item) ?? []) this.#byDep.get(d)?.delete(item);
    this.#byItem.delete(item);
  }

  /** dependents lists the items that read an object, or listed its type in its namespace or everywhere. */
  dependents(type: ResourceType, obj: KubeObject): string[] {
    const t = typeId(type);
    const ns = obj.metadata.namespace ?? '';
    const keys = [depKey({ type: t, namespace: ns, name: obj.metadata.name ?? '' }), depKey({ type: t, namespace: ns, name: '*' }), depKey({ type: t, namespace: '*', name: '*' })];
    const out = new Set<string>();
    for (const k of keys) for (const item of this.#byDep.get(k) ?? []) out.add(item);
    return [...out];
  }
}

/** TrackingReader wraps a Reader and collects the dependency keys of what is read. */
export class TrackingReader implements Reader {
  readonly #inner: Reader;
  readonly deps = new Set<string>();

  constructor(inner: Reader) {
    this.#inner = inner;
  }

  get(type: ResourceType, key: ObjectKey): KubeObject | undefined {
    this.deps.add(depKey({ type: typeId(type), namespace: type.namespaced ? key.namespace : '', name: key.name }));
    return this.#inner.get(type, key);
  }

  list(type: ResourceType, namespace?: string): KubeObject[] {
    this.deps.add(depKey({ type: typeId(type), namespace: namespace ?? '*', name: '*' }));
    return this.#inner.list(type, namespace);
  }
}
