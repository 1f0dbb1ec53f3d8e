// Owner-reference garbage collection for the ObjectStore, as the kube-controller-manager's
// collector does it: an object all of whose owners are gone is deleted; orphaning drops the
// owner reference instead.
import type { ObjectStore } from './store.ts';

/** collectGarbage deletes objects whose owners all vanished, until nothing changes; returns the count. */
export function collectGarbage(store: ObjectStore): number {
  let deleted = 0;
  for (let changed = true; changed; ) {
    changed = false;
    for (const type of store.types()) {
      for (const obj of store.list(type).items) {
        const refs = obj.metadata.ownerReferences ?? [];
        if (refs.length === 0 || obj.metadata.deletionTimestamp !== undefined) continue;
        if (refs.some((r) => store.ownerExists(r, obj.metadata.namespace ?? ''))) continue;
        store.delete(type, { namespace: obj.metadata.namespace ?? '', name: obj.metadata.name! });
        deleted++;
        changed = true;
      }
    }
  }
  return deleted;
}

/** orphanDependents removes owner references to uid (propagationPolicy: Orphan). */
export function orphanDependents(store: ObjectStore, uid: string): void {
  for (const type of store.types()) {
    for (const obj of store.list(type).items) {
      const refs = obj.metadata.ownerReferences ?? [];
      if (!refs.some((r) => r.uid === uid)) continue;
      store.patch(type, { namespace: obj.metadata.namespace ?? '', name: obj.metadata.name! }, { metadata: { ownerReferences: refs.filter((r) => r.uid !== uid) } });
    }
  }
}
