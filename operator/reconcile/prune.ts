// Pruning: delete children the resource controls that are no longer desired (a disabled PDB,
// HPA or rate-limit ConfigMap). Only objects whose controlling owner reference names the
// resource's uid are touched, and deletes carry a uid precondition.
import type { ReconcileContext } from './context.ts';
import { BUILTIN } from '../k8s/resources.ts';
import type { ResourceType } from '../k8s/resources.ts';
import type { KubeObject } from '../k8s/types.ts';
import { childKey } from './apply.ts';

/** PRUNABLE are the kinds the builders produce. */
export const PRUNABLE: readonly ResourceType[] = [
  BUILTIN.statefulSet,
  BUILTIN.deployment,
  BUILTIN.service,
  BUILTIN.configMap,
  BUILTIN.secret,
  BUILTIN.serviceAccount,
  BUILTIN.podDisruptionBudget,
  BUILTIN.horizontalPodAutoscaler,
];

/** controlledBy reports whether obj's controlling owner is the object with uid. */
export function controlledBy(obj: KubeObject, uid: string): boolean {
  return (obj.metadata.ownerReferences ?? []).some((r) => r.controller === true && r.uid === uid);
}

/** pruneChildren deletes owned children absent from keep (childKey set); returns what it deleted. */
export async function pruneChildren(ctx: ReconcileContext, owner: KubeObject, keep: ReadonlySet<string>): Promise<string[]> {
  const deleted: string[] = [];
  for (const type of PRUNABLE) {
    for (const obj of ctx.untracked.list(type, owner.metadata.namespace)) {
      if (!controlledBy(obj, owner.metadata.uid!) || keep.has(childKey(obj))) continue;
      try {
        await ctx.client.delete(type, { namespace: obj.metadata.namespace!, name: obj.metadata.name! }, { uid: obj.metadata.uid!, propagationPolicy: 'Background' });
      } catch (err) {
        throw new Error(`cannot delete ${obj.kind} "${obj.metadata.name}" that is no longer needed: ${(err as Error).message}`, { cause: err });
      }
      deleted.push(childKey(obj));
      await ctx.events.record(owner, 'Normal', 'Pruned', `deleted ${childKey(obj)}, which the spec no longer needs`);
    }
  }
  return deleted;
}
