// Generic apply of desired children: owner reference + server-side apply under one field
// manager. Fields the operator stops setting are removed by the API server (apply semantics),
// fields other actors own (an HPA's replica count, a Service's clusterIP) are left alone.
import type { ReconcileContext } from './context.ts';
import type { KubeObject, OwnerReference } from '../k8s/types.ts';

/**
 * ownerReference makes `owner` the controlling owner, so deleting it deletes the child.
 * blockOwnerDeletion is left out: it would need update rights on <kind>/finalizers for an
 * effect (foreground deletion waiting for children) the operator does not rely on.
 */
export function ownerReference(owner: KubeObject): OwnerReference {
  return { apiVersion: owner.apiVersion, kind: owner.kind, name: owner.metadata.name!, uid: owner.metadata.uid!, controller: true };
}

/** withOwner returns a copy of obj owned by owner. */
export function withOwner(obj: KubeObject, owner: KubeObject): KubeObject {
  return { ...obj, metadata: { ...obj.metadata, ownerReferences: [ownerReference(owner)] } };
}

/** childKey identifies a child by kind and name (children share the owner's namespace). */
export function childKey(obj: KubeObject): string {
  return `${obj.kind}/${obj.metadata.name}`;
}

/** applyChildren applies objects in order and returns the live objects by childKey. */
export async function applyChildren(ctx: ReconcileContext, owner: KubeObject, desired: readonly KubeObject[]): Promise<Map<string, KubeObject>> {
  const live = new Map<string, KubeObject>();
  for (const obj of desired) {
    try {
      live.set(childKey(obj), await ctx.client.apply(withOwner(obj, owner), { fieldManager: ctx.options.fieldManager, force: true }));
    } catch (err) {
      throw new Error(`cannot apply ${obj.kind} "${obj.metadata.name}": ${(err as Error).message}`, { cause: err });
    }
  }
  return live;
}
