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
const REVISION_LABEL = 'controller-revision-hash';

/** defaultIsReady: a Pod is ready unless an image contains "broken" or it is annotated never-ready. */
export function defaultIsReady(pod: KubeObject): boolean {
  const containers = (pod['spec'] as { containers?: { image?: string }[] } | undefined)?.containers ?? [];
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

type StatusType = typeof BUILTIN.statefulSet | typeof BUILTIN.deployment | typeof BUILTIN.podDisruptionBudget;

const ownedBy = (obj: KubeObject, owner: KubeObject) => (obj.metadata.ownerReferences ?? []).some((r) => r.uid === owner.metadata.uid);
const revisionOf = (pod: KubeObject) => pod.metadata.labels?.[REVISION_LABEL];

class ControllerSimulation implements Simulation {
  readonly #store: ObjectStore;
  readonly #readyDelayMs: number;
  readonly #isReady: (pod: KubeObject) => boolean;
  readonly #timers = new Set<ReturnType<typeof setTimeout>>();
  readonly #unsubscribe: () => void;
  #scheduled = false;
  #stopped = false;

  constructor(store: ObjectStore, opts: SimulationOptions) {
    this.#store = store;
    this.#readyDelayMs = opts.readyDelayMs ?? 20;
    this.#isReady = opts.isReady ?? defaultIsReady;
    const relevant = new Set(['StatefulSet', 'Deployment', 'Pod', 'PodDisruptionBudget']);
    this.#unsubscribe = store.onChange((change) => {
      if (this.#scheduled || !relevant.has(change.type.kind)) return;
      this.#scheduled = true;
      this.#later(0, () => this.#pass());
    });
  }

  #later(ms: number, fn: () => void): void {
    const t = setTimeout(() => {
      this.#timers.delete(t);
      if (!this.#stopped) fn();
    }, ms);
    this.#timers.add(t);
  }

  #pass(): void {
    this.#scheduled = false;
    for (const sts of this.#store.list(BUILTIN.statefulSet).items) if (sts.metadata.deletionTimestamp === undefined) this.#syncStatefulSet(sts);
    for (const dep of this.#store.list(BUILTIN.deployment).items) if (dep.metadata.deletionTimestamp === undefined) this.#syncDeployment(dep);
    const pods = this.#store.list(BUILTIN.pod).items;
    for (const pdb of this.#store.list(BUILTIN.podDisruptionBudget).items) {
      this.#writeStatus(BUILTIN.podDisruptionBudget, pdb, { observedGeneration: pdb.metadata.generation, ...pdbStatus(pdb, pods, (uid) => this.#store.findByUid(uid)) });
    }
  }

  #setPodStatus(pod: KubeObject, ready: boolean): void {
    const cur = this.#store.get(BUILTIN.pod, { namespace: pod.metadata.namespace!, name: pod.metadata.name! });
    if (cur === undefined || cur.metadata.uid !== pod.metadata.uid || cur.metadata.deletionTimestamp !== undefined) return;
    const prev = (cur['status'] as { conditions?: { type: string; status: string }[] } | undefined)?.conditions?.find((c) => c.type === 'Ready')?.status;
    if (prev === (ready ? 'True' : 'False')) return;
    const condition = { type: 'Ready', status: ready ? 'True' : 'False', lastTransitionTime: new Date().toISOString().replace(/\.\d+Z$/, 'Z') };
    this.#store.replace(BUILTIN.pod, { ...cur, status: { phase: 'Running', conditions: [condition] } }, 'status');
  }

  #createPod(owner: KubeObject, name: string, template: Template, extraLabels: Record<string, string>): void {
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
    const created = this.#store.create(BUILTIN.pod, pod, MANAGER);
    this.#later(this.#readyDelayMs, () => this.#setPodStatus(created, this.#isReady(created)));
  }

  #podsOf(owner: KubeObject): KubeObject[] {
    return this.#store.list(BUILTIN.pod, { namespace: owner.metadata.namespace! }).items.filter((p) => ownedBy(p, owner));
  }

  #deletePod(pod: KubeObject): void {
    this.#store.delete(BUILTIN.pod, { namespace: pod.metadata.namespace!, name: pod.metadata.name! });
  }

  #writeStatus(type: StatusType, obj: KubeObject, status: Record<string, unknown>): void {
    if (JSON.stringify(obj['status'] ?? {}) !== JSON.stringify(status)) this.#store.replace(type, { ...obj, status }, 'status');
  }

  #syncStatefulSet(sts: KubeObject): void {
    const spec = sts['spec'] as { replicas?: number; template: Template; updateStrategy?: { type?: string } };
    const want = spec.replicas ?? 1;
    const name = sts.metadata.name!;
    const revision = `${name}-${templateHash(spec.template)}`;
    const ordinal = (p: KubeObject) => Number(p.metadata.name!.slice(name.length + 1));
    for (const p of this.#podsOf(sts)) if (ordinal(p) >= want) this.#deletePod(p);
    for (let i = 0; i < want; i++) {
      if (!this.#podsOf(sts).some((p) => ordinal(p) === i)) this.#createPod(sts, `${name}-${i}`, spec.template, { [REVISION_LABEL]: revision, 'statefulset.kubernetes.io/pod-name': `${name}-${i}` });
    }
    const pods = this.#podsOf(sts);
    const ready = pods.filter(isPodReady).length;
    const updated = pods.filter((p) => revisionOf(p) === revision).length;
    const rolling = (spec.updateStrategy?.type ?? 'RollingUpdate') === 'RollingUpdate';
    if (rolling && pods.length === want && ready === want && updated < want) {
      const outdated = pods.filter((p) => revisionOf(p) !== revision).sort((a, b) => ordinal(b) - ordinal(a));
      if (outdated[0] !== undefined) this.#deletePod(outdated[0]);
    }
    const prev = (sts['status'] as { currentRevision?: string } | undefined)?.currentRevision;
    const current = prev === undefined || (rolling && updated === want && ready === want) ? revision : prev;
    this.#writeStatus(BUILTIN.statefulSet, sts, {
      observedGeneration: sts.metadata.generation,
      replicas: pods.length,
      readyReplicas: ready,
      availableReplicas: ready,
      currentReplicas: pods.filter((p) => revisionOf(p) === current).length,
      updatedReplicas: updated,
      currentRevision: current,
      updateRevision: revision,
    });
  }

  #syncDeployment(dep: KubeObject): void {
    const spec = dep['spec'] as { replicas?: number; template: Template };
    const want = spec.replicas ?? 1;
    const hash = templateHash(spec.template);
    const isNew = (p: KubeObject) => p.metadata.labels?.['pod-template-hash'] === hash;
    const index = (p: KubeObject) => Number(p.metadata.name!.split('-').pop());
    const fresh = this.#podsOf(dep).filter(isNew);
    for (const p of fresh) if (index(p) >= want) this.#deletePod(p);
    for (let i = 0; i < want; i++) {
      if (!fresh.some((p) => index(p) === i)) this.#createPod(dep, `${dep.metadata.name}-${hash}-${i}`, spec.template, { 'pod-template-hash': hash });
    }
    // Old Pods go once the new ones carry the load, so a broken template never removes capacity.
    const current = this.#podsOf(dep);
    const newPods = current.filter(isNew);
    if (newPods.filter(isPodReady).length >= want) for (const p of current) if (!isNew(p)) this.#deletePod(p);
    const all = this.#podsOf(dep);
    const ready = all.filter(isPodReady).length;
    this.#writeStatus(BUILTIN.deployment, dep, {
      observedGeneration: dep.metadata.generation,
      replicas: all.length,
      updatedReplicas: newPods.length,
      readyReplicas: ready,
      availableReplicas: ready,
      unavailableReplicas: Math.max(0, want - ready),
      conditions: [{ type: 'Available', status: ready >= want ? 'True' : 'False', reason: ready >= want ? 'MinimumReplicasAvailable' : 'MinimumReplicasUnavailable' }],
    });
  }

  refreshReadiness(): void {
    for (const pod of this.#store.list(BUILTIN.pod).items) if (pod['status'] !== undefined) this.#setPodStatus(pod, this.#isReady(pod));
  }

  stop(): void {
    this.#stopped = true;
    this.#unsubscribe();
    for (const t of this.#timers) clearTimeout(t);
    this.#timers.clear();
  }
}

/** simulateControllers starts the simulated controllers on a store. */
export function simulateControllers(store: ObjectStore, opts: SimulationOptions = {}): Simulation {
  return new ControllerSimulation(store, opts);
}
