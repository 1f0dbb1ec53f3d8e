// The eviction subresource: deletes a Pod unless a PodDisruptionBudget covering it has no
// disruption left (429), as the API server's eviction handler does.
import { KubeApiError } from '../errors.ts';
import { BUILTIN } from '../resources.ts';
import { fromLabelSelector, matches } from '../selector.ts';
import type { LabelSelectorSpec } from '../selector.ts';
import type { KubeObject, ObjectKey } from '../types.ts';
import type { ObjectStore } from './store.ts';

/** isPodReady reports a Pod whose Ready condition is True and that is not terminating. */
export function isPodReady(pod: KubeObject): boolean {
  if (pod.metadata.deletionTimestamp !== undefined) return false;
  const conds = (pod['status'] as { conditions?: { type: string; status: string }[] } | undefined)?.conditions ?? [];
  return conds.some((c) => c.type === 'Ready' && c.status === 'True');
}

function scaled(value: number | string, total: number, roundUp: boolean): number {
  if (typeof value === 'number') return value;
  const pct = Number(value.replace('%', '')) / 100;
  return roundUp ? Math.ceil(pct * total) : Math.floor(pct * total);
}

/** PdbStatus is what the disruption controller computes for one budget. */
export interface PdbStatus {
  readonly expectedPods: number;
  readonly currentHealthy: number;
  readonly desiredHealthy: number;
  readonly disruptionsAllowed: number;
}

/**
 * pdbStatus computes a budget's status from the Pods it selects. Expected Pods are the replica
 * counts of their controllers (found with lookupUid), so a Pod being replaced still counts.
 */
export function pdbStatus(pdb: KubeObject, pods: readonly KubeObject[], lookupUid: (uid: string) => KubeObject | undefined): PdbStatus {
  const spec = pdb['spec'] as { selector?: LabelSelectorSpec; minAvailable?: number | string; maxUnavailable?: number | string };
  const selector = fromLabelSelector(spec.selector ?? {}) ?? [];
  const selected = pods.filter((p) => p.metadata.namespace === pdb.metadata.namespace && matches(selector, p.metadata.labels));
  const controllers = new Set<string>();
  let expectedPods = 0;
  for (const p of selected) {
    const ref = (p.metadata.ownerReferences ?? []).find((r) => r.controller === true);
    const owner = ref === undefined ? undefined : lookupUid(ref.uid);
    if (owner === undefined) expectedPods++;
    else if (!controllers.has(ref!.uid)) {
      controllers.add(ref!.uid);
      expectedPods += (owner['spec'] as { replicas?: number } | undefined)?.replicas ?? 1;
    }
  }
  const currentHealthy = selected.filter(isPodReady).length;
  const desiredHealthy =
    spec.minAvailable !== undefined
      ? scaled(spec.minAvailable, expectedPods, true)
      : Math.max(0, expectedPods - scaled(spec.maxUnavailable ?? 0, expectedPods, true));
  return { expectedPods, currentHealthy, desiredHealthy, disruptionsAllowed: Math.max(0, currentHealthy - desiredHealthy) };
}

/** evictPod deletes a Pod when every budget covering it allows one more disruption. */
export function evictPod(store: ObjectStore, key: ObjectKey): void {
  const pod = store.get(BUILTIN.pod, key);
  if (pod === undefined) throw new KubeApiError(404, 'NotFound', `pods "${key.name}" not found`);
  // Unready Pods may always be evicted: they do not count against a budget.
  if (isPodReady(pod)) {
    const pods = store.list(BUILTIN.pod, { namespace: key.namespace }).items;
    for (const pdb of store.list(BUILTIN.podDisruptionBudget, { namespace: key.namespace }).items) {
      const sel = fromLabelSelector((pdb['spec'] as { selector?: LabelSelectorSpec }).selector ?? {}) ?? [];
      if (!matches(sel, pod.metadata.labels)) continue;
      if (pdbStatus(pdb, pods, (uid) => store.findByUid(uid)).disruptionsAllowed < 1) {
        throw new KubeApiError(429, 'TooManyRequests', `Cannot evict pod as it would violate the pod's disruption budget "${pdb.metadata.name}".`);
      }
    }
  }
  store.delete(BUILTIN.pod, key);
}
