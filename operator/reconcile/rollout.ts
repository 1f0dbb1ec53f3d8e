// Rollout steps for workloads. StatefulSets use OnDelete updates: the operator replaces one
// outdated Pod at a time through the eviction API (which honours PodDisruptionBudgets), and only
// when every Pod is Ready. Deployments roll themselves; we only judge whether they are done.
import type { ReconcileContext } from './context.ts';
import { isNotFound, isTooManyRequests } from '../k8s/errors.ts';
import { BUILTIN } from '../k8s/resources.ts';
import type { KubeObject } from '../k8s/types.ts';
import { controlledBy } from './prune.ts';

/** RolloutState says whether a workload runs its current template on all-ready Pods. */
export interface RolloutState {
  readonly done: boolean;
  readonly reason: string;
  readonly message: string;
}

interface WorkloadStatus {
  observedGeneration?: number;
  replicas?: number;
  readyReplicas?: number;
  updatedReplicas?: number;
  updateRevision?: string;
}

const statusOf = (obj: KubeObject) => (obj['status'] as WorkloadStatus | undefined) ?? {};
const desiredReplicas = (obj: KubeObject) => (obj['spec'] as { replicas?: number } | undefined)?.replicas ?? 1;

/** isPodReady reports a running Pod whose Ready condition is True. */
export function isPodReady(pod: KubeObject): boolean {
  if (pod.metadata.deletionTimestamp !== undefined) return false;
  const conds = (pod['status'] as { conditions?: { type: string; status: string }[] } | undefined)?.conditions ?? [];
  return conds.some((c) => c.type === 'Ready' && c.status === 'True');
}

const ordinal = (pod: KubeObject) => Number(/-(\d+)$/.exec(pod.metadata.name ?? '')?.[1] ?? -1);

/**
 * rollStatefulSet advances an OnDelete StatefulSet by at most one Pod. `sts` must be fresh (the
 * apply response), so a template change is never mistaken for a finished rollout.
 */
export async function rollStatefulSet(ctx: ReconcileContext, sts: KubeObject, owner: KubeObject): Promise<RolloutState> {
  const status = statusOf(sts);
  const name = sts.metadata.name!;
  if ((status.observedGeneration ?? 0) < (sts.metadata.generation ?? 1) || status.updateRevision === undefined) {
    return { done: false, reason: 'WaitingForController', message: `StatefulSet ${name} has not observed its latest spec yet` };
  }
  const want = desiredReplicas(sts);
  const pods = ctx.reader.list(BUILTIN.pod, sts.metadata.namespace).filter((p) => controlledBy(p, sts.metadata.uid!));
  if (pods.length !== want) return { done: false, reason: 'PodsStarting', message: `StatefulSet ${name} has ${pods.length}/${want} Pods` };
  const notReady = pods.filter((p) => !isPodReady(p)).map((p) => p.metadata.name!).sort();
  if (notReady.length > 0) return { done: false, reason: 'WaitingForReadiness', message: `waiting for Pods to become ready: ${notReady.join(', ')}` };
  // The StatefulSet's own count can lag the Pods seen here; wait for it too, so a Ready status
  // never reports fewer ready replicas than it needs (its status update triggers the next run).
  if ((status.readyReplicas ?? 0) < want) return { done: false, reason: 'WaitingForReadiness', message: `StatefulSet ${name} reports ${status.readyReplicas ?? 0}/${want} ready Pods` };
  const outdated = pods.filter((p) => p.metadata.labels?.['controller-revision-hash'] !== status.updateRevision).sort((a, b) => ordinal(b) - ordinal(a));
  const next = outdated[0];
  if (next === undefined) return { done: true, reason: 'RolloutComplete', message: `StatefulSet ${name} runs revision ${status.updateRevision} on ${want} ready Pods` };
  try {
    await ctx.client.evict({ namespace: next.metadata.namespace!, name: next.metadata.name! });
  } catch (err) {
    if (isTooManyRequests(err)) {
      const message = `cannot evict Pod ${next.metadata.name}: ${(err as Error).message}`;
      await ctx.events.record(owner, 'Warning', 'RolloutBlocked', message);
      return { done: false, reason: 'RolloutBlocked', message };
    }
    if (!isNotFound(err)) throw new Error(`cannot evict Pod "${next.metadata.name}": ${(err as Error).message}`, { cause: err });
  }
  await ctx.events.record(owner, 'Normal', 'PodReplaced', `replaced Pod ${next.metadata.name} to roll out revision ${status.updateRevision} (${outdated.length - 1} Pods left)`);
  return { done: false, reason: 'RollingUpdate', message: `replacing Pod ${next.metadata.name}; ${outdated.length - 1} outdated Pods left` };
}

/** deploymentState judges a Deployment from a fresh object (apply response or cache). */
export function deploymentState(dep: KubeObject): RolloutState {
  const s = statusOf(dep);
  const want = desiredReplicas(dep);
  const name = dep.metadata.name!;
  if ((s.observedGeneration ?? 0) < (dep.metadata.generation ?? 1)) return { done: false, reason: 'WaitingForController', message: `Deployment ${name} has not observed its latest spec yet` };
  if ((s.updatedReplicas ?? 0) < want) return { done: false, reason: 'RollingUpdate', message: `Deployment ${name} has ${s.updatedReplicas ?? 0}/${want} updated Pods` };
  if ((s.readyReplicas ?? 0) < want) return { done: false, reason: 'WaitingForReadiness', message: `Deployment ${name} has ${s.readyReplicas ?? 0}/${want} ready Pods` };
  if ((s.replicas ?? 0) > want) return { done: false, reason: 'RollingUpdate', message: `Deployment ${name} still runs ${(s.replicas ?? 0) - want} old Pods` };
  return { done: true, reason: 'RolloutComplete', message: `Deployment ${name} runs its current template on ${want} ready Pods` };
}

/** componentStatus summarises a workload for the resource status. */
export function componentStatus(workload: KubeObject | undefined, desired: number): { replicas: number; readyReplicas: number; updatedReplicas: number; ready: string } {
  const s = workload === undefined ? {} : statusOf(workload);
  const want = workload === undefined ? desired : desiredReplicas(workload);
  return { replicas: want, readyReplicas: s.readyReplicas ?? 0, updatedReplicas: s.updatedReplicas ?? 0, ready: `${s.readyReplicas ?? 0}/${want}` };
}

/** observedState judges a workload without changing anything (used while paused). */
export function observedState(workload: KubeObject | undefined, what: string): RolloutState {
  if (workload === undefined) return { done: false, reason: 'NotCreated', message: `${what} does not exist` };
  if (workload.kind === 'Deployment') return deploymentState(workload);
  const s = statusOf(workload);
  const want = desiredReplicas(workload);
  if ((s.readyReplicas ?? 0) < want) return { done: false, reason: 'WaitingForReadiness', message: `StatefulSet ${workload.metadata.name} has ${s.readyReplicas ?? 0}/${want} ready Pods` };
  return { done: true, reason: 'RolloutComplete', message: `StatefulSet ${workload.metadata.name} is ready` };
}
