// Simulated kube-controller-manager for the fake API: StatefulSets and Deployments get Pods,
// Pods become Ready after a delay (unless the readiness rule says no), and workload and
// PodDisruptionBudget statuses are kept current. Close enough to the real controllers for the
// operator's rollout logic: StatefulSet OnDelete leaves outdated Pods alone and never advances
// currentRevision; RollingUpdate replaces Pods highest ordinal first, one at a time.
import { createHash } from 'node:crypto';
import { BUILTIN } from '../resources.ts';
import type { KubeObject } from '../types.ts';
import { isPodReady, pdbStatus } from './eviction.ts';
import type { ObjectStore } from './store.ts';

/** SimulationOptions tune the simulated controllers. */
export interface SimulationOptions {
  /** readyDelayMs: time from Pod creation to its first readiness verdict. */
  readonly readyDelayMs?: number;
  /** isReady decides whether a Pod ever becomes Ready (default: no image containing "broken"). */
  readonly isReady?: (pod: KubeObject) => boolean;
}

/** Simulation is a running set of simulated controllers. */
export interface Simulation {
  /** refreshReadiness re-applies the readiness rule to every running Pod. */
  refreshReadiness(): void;
  stop(): void;
}

const MANAGER = 'kube-controller-manager';

/** defaultIsReady: a Pod is ready unless an image contains "broken" or it is annotated never-ready. */
export function defaultIsReady(pod: KubeObject): boolean {
  const containers = ((pod['spec'] as { containers?: { image?: string }[] } | undefined)?.containers ?? []);
  if (containers.some((c) => (c.image ?? '').includes('broken'))) return false;
  return pod.metadata.annotations?.['fake.strata.dev/never-ready'] !== 'true';
}

/** templateHash is the revision id of a Pod template. */
export function templateHash(template: unknown): string {
  return createHash('sha256').update(JSON.stringify(template ?? {})).digest('hex').slice(0, 10);
}

interface Template {
  metadata?: { labels?: Record<string, string>; annotations?: Record<string, string> };
  spec?: unknown;
}

function ownedBy(obj: KubeObject, owner: KubeObject): boolean {
  return (obj.metadata.ownerReferences ?? []).some((r) => r.uid === owner.metadata.uid);
}

/** simulateControllers starts the simulated controllers on a store. */
export function simulateControllers(store: ObjectStore, opts: SimulationOptions = {}): Simulation {
  const readyDelayMs = opts.readyDelayMs ?? 20;
  const isReady = opts.isReady ?? defaultIsReady;
  const timers = new Set<ReturnType<typeof setTimeout>>();
  let scheduled = false;
  let stopped = false;

  const later = (ms: number, fn: () => void) => {
    const t = setTimeout(() => {
      timers.delete(t);
      if (!stopped) fn();
    }, ms);
    timers.add(t);
  };

  const setPodStatus = (pod: KubeObject, ready: boolean) => {
    const status = {
      phase: 'Running',
      conditions: [{ type: 'Ready', status: ready ? 'True' : 'False', lastTransitionTime: new Date().toISOString().replace(/\.\d+Z$/, 'Z') }],
    };
    const cur = store.get(BUILTIN.pod, { namespace: pod.metadata.namespace!, name: pod.metadata.name! });
    if (cur === undefined || cur.metadata.uid !== pod.metadata.uid || cur.metadata.deletionTimestamp !== undefined) return;
    const prev = (cur['status'] as { conditions?: { type: string; status: string }[] } | undefined)?.conditions?.find((c) => c.type === 'Ready')?.status;
    if (prev === (ready ? 'True' : 'False')) return;
    store.replace(BUILTIN.pod, { ...cur, status }, 'status');
  };

  const createPod = (owner: KubeObject, name: string, template: Template, extraLabels: Record<string, string>) => {
    const pod: KubeObject = {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: {
        name,
        namespace: owner.metadata.namespace!,
        labels: { ...(template.metadata?.labels ?? {}), ...extraLabels },
        annotations: { ...(template.metadata?.annotations ?? {}) },
        ownerReferences: [{ apiVersion: owner.apiVersion, kind: owner.kind, name: owner.metadata.name!, uid: owner.metadata.uid!, controller: true, blockOwnerDeletion: true }],
      },
      spec: structuredClone(template.spec ?? {}),
    };
    const created = store.create(BUILTIN.pod, pod, MANAGER);
    later(readyDelayMs, () => setPodStatus(created, isReady(created)));
  };

  const podsOf = (owner: KubeObject) => store.list(BUILTIN.pod, { namespace: owner.metadata.namespace! }).items.filter((p) => ownedBy(p, owner));
  const deletePod = (pod: KubeObject) => store.delete(BUILTIN.pod, { namespace: pod.metadata.namespace!, name: pod.metadata.name! });

  const writeStatus = (type: typeof BUILTIN.statefulSet | typeof BUILTIN.deployment | typeof BUILTIN.podDisruptionBudget, obj: KubeObject, status: Record<string, unknown>) => {
    if (JSON.stringify(obj['status'] ?? {}) === JSON.stringify(status)) return;
    store.replace(type, { ...obj, status }, 'status');
  };

  const syncStatefulSet = (sts: KubeObject) => {
    const spec = sts['spec'] as { replicas?: number; template: Template; updateStrategy?: { type?: string } };
    const want = spec.replicas ?? 1;
    const name = sts.metadata.name!;
    const revision = `${name}-${templateHash(spec.template)}`;
    let pods = podsOf(sts);
    const ordinal = (p: KubeObject) => Number(p.metadata.name!.slice(name.length + 1));
    for (const p of pods) if (ordinal(p) >= want) deletePod(p);
    pods = pods.filter((p) => ordinal(p) < want);
    for (let i = 0; i < want; i++) {
      if (!pods.some((p) => ordinal(p) === i)) createPod(sts, `${name}-${i}`, spec.template, { 'controller-revision-hash': revision, 'statefulset.kubernetes.io/pod-name': `${name}-${i}` });
    }
    pods = podsOf(sts).filter((p) => ordinal(p) < want);
    const ready = pods.filter(isPodReady).length;
    const updated = pods.filter((p) => p.metadata.labels?.['controller-revision-hash'] === revision).length;
    const rolling = (spec.updateStrategy?.type ?? 'RollingUpdate') === 'RollingUpdate';
    if (rolling && pods.length === want && ready === want && updated < want) {
      const outdated = pods.filter((p) => p.metadata.labels?.['controller-revision-hash'] !== revision).sort((a, b) => ordinal(b) - ordinal(a));
      if (outdated[0] !== undefined) deletePod(outdated[0]);
    }
    const prev = (sts['status'] as { currentRevision?: string } | undefined)?.currentRevision;
    const current = prev === undefined || (rolling && updated === want && ready === want) ? revision : prev;
    writeStatus(BUILTIN.statefulSet, sts, {
      observedGeneration: sts.metadata.generation,
      replicas: pods.length,
      readyReplicas: ready,
      availableReplicas: ready,
      currentReplicas: pods.filter((p) => p.metadata.labels?.['controller-revision-hash'] === current).length,
      updatedReplicas: updated,
      currentRevision: current,
      updateRevision: revision,
    });
  };

  const syncDeployment = (dep: KubeObject) => {
    const spec = dep['spec'] as { replicas?: number; template: Template };
    const want = spec.replicas ?? 1;
    const hash = templateHash(spec.template);
    const pods = podsOf(dep);
    const fresh = pods.filter((p) => p.metadata.labels?.['pod-template-hash'] === hash);
    const index = (p: KubeObject) => Number(p.metadata.name!.split('-').pop());
    for (const p of fresh) if (index(p) >= want) deletePod(p);
    for (let i = 0; i < want; i++) {
      if (!fresh.some((p) => index(p) === i)) createPod(dep, `${dep.metadata.name}-${hash}-${i}`, spec.template, { 'pod-template-hash': hash });
    }
    const current = podsOf(dep);
    const newPods = current.filter((p) => p.metadata.labels?.['pod-template-hash'] === hash);
    const newReady = newPods.filter(isPodReady).length;
    // Old Pods go once the new ones carry the load, so a broken template never removes capacity.
    if (newReady >= want) for (const p of current) if (p.metadata.labels?.['pod-template-hash'] !== hash) deletePod(p);
    const all = podsOf(dep);
    const ready = all.filter(isPodReady).length;
    writeStatus(BUILTIN.deployment, dep, {
      observedGeneration: dep.metadata.generation,
      replicas: all.length,
      updatedReplicas: newPods.length,
      readyReplicas: ready,
      availableReplicas: ready,
      unavailableReplicas: Math.max(0, want - ready),
      conditions: [{ type: 'Available', status: ready >= want ? 'True' : 'False', reason: ready >= want ? 'MinimumReplicasAvailable' : 'MinimumReplicasUnavailable' }],
    });
  };

  const syncPdb = (pdb: KubeObject, pods: KubeObject[]) => {
    const s = pdbStatus(pdb, pods, (uid) => store.findByUid(uid));
    writeStatus(BUILTIN.podDisruptionBudget, pdb, { observedGeneration: pdb.metadata.generation, ...s });
  };

  const pass = () => {
    scheduled = false;
    if (stopped) return;
    for (const sts of store.list(BUILTIN.statefulSet).items) if (sts.metadata.deletionTimestamp === undefined) syncStatefulSet(sts);
    for (const dep of store.list(BUILTIN.deployment).items) if (dep.metadata.deletionTimestamp === undefined) syncDeployment(dep);
    const pods = store.list(BUILTIN.pod).items;
    for (const pdb of store.list(BUILTIN.podDisruptionBudget).items) syncPdb(pdb, pods);
  };

  const relevant = new Set(['StatefulSet', 'Deployment', 'Pod', 'PodDisruptionBudget']);
  const unsubscribe = store.onChange((change) => {
    if (scheduled || !relevant.has(change.type.kind)) return;
    scheduled = true;
    later(0, pass);
  });

  return {
    refreshReadiness() {
      for (const pod of store.list(BUILTIN.pod).items) if ((pod['status'] as object | undefined) !== undefined) setPodStatus(pod, isReady(pod));
    },
    stop() {
      stopped = true;
      unsubscribe();
      for (const t of timers) clearTimeout(t);
      timers.clear();
    },
  };
}
