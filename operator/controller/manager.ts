// Manager: informers on the custom resources and everything they own or reference, one
// de-duplicating work queue, and a pool of workers that run the per-kind reconcilers. An
// error in one resource only delays that resource (per-key backoff); others keep going.
import type { KubeClient } from '../k8s/client.ts';
import { BUILTIN, CUSTOM, typeId } from '../k8s/resources.ts';
import type { ResourceType } from '../k8s/resources.ts';
import { keyString, objectKey, parseKeyString } from '../k8s/types.ts';
import type { KubeObject } from '../k8s/types.ts';
import { INSTANCE_LABEL, MANAGED_SELECTOR, OWNER_KIND_LABEL } from '../labels.ts';
import { authProxyUserController } from './auth-proxy-user.ts';
import { authProxyController } from './auth-proxy.ts';
import type { Clock } from '../runtime/clock.ts';
import type { Reader, ReconcileContext } from '../reconcile/context.ts';
import type { KindController, OperatorOptions } from './context.ts';
import { DependencyIndex, TrackingReader } from './dependency-index.ts';
import { EventRecorder } from '../runtime/events.ts';
import { Informer } from './informer.ts';
import type { InformerEvent } from './informer.ts';
import type { Logger } from '../runtime/logger.ts';
import { tsdbClusterController } from './tsdb-cluster.ts';
import { tsdbGatewayController } from './tsdb-gateway.ts';
import { tsdbSingleController } from './tsdb-single.ts';
import { WorkQueue } from './work-queue.ts';

/** OperatorMetrics receives what the manager measures; cmd backs it with src/lib/metrics. */
export interface OperatorMetrics {
  reconcileFinished(kind: string, outcome: 'success' | 'error', seconds: number): void;
  setQueueDepth(depth: number): void;
}

/** ManagerDeps are the manager's collaborators. */
export interface ManagerDeps {
  readonly client: KubeClient;
  readonly options: OperatorOptions;
  readonly log: Logger;
  readonly clock: Clock;
  readonly metrics: OperatorMetrics;
  /** identity names this operator instance in Events. */
  readonly identity: string;
}

/** CONTROLLERS are the reconcilers, one per strata.dev kind. */
export const CONTROLLERS: readonly KindController[] = [tsdbSingleController, tsdbClusterController, tsdbGatewayController, authProxyController, authProxyUserController];

/** OWNED are the child kinds watched through the managed-by label. */
export const OWNED: readonly ResourceType[] = [BUILTIN.statefulSet, BUILTIN.deployment, BUILTIN.service, BUILTIN.serviceAccount, BUILTIN.podDisruptionBudget, BUILTIN.horizontalPodAutoscaler, BUILTIN.pod];
/** REFERENCED are watched whole: users point at them by name (and the operator owns some). */
export const REFERENCED: readonly ResourceType[] = [BUILTIN.secret, BUILTIN.configMap];

const itemOf = (kind: string, obj: KubeObject) => `${kind}|${keyString(objectKey(obj))}`;

// Only spec, labels, annotations, owners and deletion matter for strata.dev resources: their
// own status writes must not start another round.
function meaningful(e: InformerEvent): boolean {
  if (e.type !== 'MODIFIED' || e.old === undefined) return true;
  const m = (o: KubeObject) => JSON.stringify([o.metadata.generation, o.metadata.labels, o.metadata.annotations, o.metadata.deletionTimestamp, o.metadata.ownerReferences]);
  return m(e.old) !== m(e.object);
}

/** Manager runs informers and workers until its signal aborts. */
export class Manager {
  readonly #deps: ManagerDeps;
  readonly #queue: WorkQueue;
  readonly #index = new DependencyIndex();
  readonly #informers = new Map<string, Informer>();
  readonly #controllers = new Map(CONTROLLERS.map((c) => [c.kind, c]));
  readonly #events: EventRecorder;
  readonly #reader: Reader;

  constructor(deps: ManagerDeps) {
    this.#deps = deps;
    this.#queue = new WorkQueue(deps.clock, deps.options.backoff);
    this.#events = new EventRecorder({ client: deps.client, clock: deps.clock, log: deps.log, component: 'strata-operator', instance: deps.identity });
    const o = deps.options;
    const add = (type: ResourceType, labelSelector?: string) =>
      this.#informers.set(
        typeId(type),
        new Informer({
          client: deps.client,
          type,
          namespaces: o.watchNamespaces,
          ...(labelSelector === undefined ? {} : { labelSelector }),
          log: deps.log,
          clock: deps.clock,
          resyncMs: Object.values(CUSTOM).includes(type) ? o.resyncMs : 0,
          backoff: o.backoff,
          watchTimeoutSeconds: o.watchTimeoutSeconds,
        }),
      );
    for (const type of Object.values(CUSTOM)) add(type);
    for (const type of OWNED) add(type, MANAGED_SELECTOR);
    for (const type of REFERENCED) add(type);
    add(BUILTIN.namespace);
    for (const inf of this.#informers.values()) inf.on((e) => this.#onEvent(inf.type, e));
    const informers = this.#informers;
    this.#reader = {
      get: (type, key) => informers.get(typeId(type))?.get(type.namespaced ? key : { namespace: '', name: key.name }),
      list: (type, namespace) => informers.get(typeId(type))?.list(namespace) ?? [],
    };
  }

  /** queueLength is the number of resources waiting for a worker. */
  get queueLength(): number {
    return this.#queue.length;
  }

  #enqueue(item: string): void {
    this.#queue.add(item);
    this.#deps.metrics.setQueueDepth(this.#queue.length);
  }

  #onEvent(type: ResourceType, e: InformerEvent): void {
    const custom = CUSTOM[type.kind] === type;
    if (custom && !meaningful(e)) return;
    if (custom) {
      if (e.type === 'DELETED') this.#index.forget(itemOf(type.kind, e.object));
      else this.#enqueue(itemOf(type.kind, e.object));
    } else if (e.type !== 'RESYNC') {
      const owner = this.#ownerItem(e.object);
      if (owner !== undefined) this.#enqueue(owner);
    }
    if (e.type !== 'RESYNC') for (const item of this.#index.dependents(type, e.object)) this.#enqueue(item);
  }

  // Children name their resource by controller reference; Pods (owned by a StatefulSet or
  // ReplicaSet) by the owner-kind and instance labels every template carries.
  #ownerItem(obj: KubeObject): string | undefined {
    const ref = (obj.metadata.ownerReferences ?? []).find((r) => r.controller === true && CUSTOM[r.kind] !== undefined && r.apiVersion.startsWith('strata.dev/'));
    if (ref !== undefined) return `${ref.kind}|${obj.metadata.namespace}/${ref.name}`;
    const kind = obj.metadata.labels?.[OWNER_KIND_LABEL];
    const instance = obj.metadata.labels?.[INSTANCE_LABEL];
    if (kind !== undefined && instance !== undefined && CUSTOM[kind] !== undefined) return `${kind}|${obj.metadata.namespace}/${instance}`;
    return undefined;
  }

  #context(reader: Reader, kind: string): ReconcileContext {
    const d = this.#deps;
    return { client: d.client, reader, untracked: this.#reader, events: this.#events, log: d.log.child({ kind }), options: d.options, clock: d.clock };
  }

  async #work(item: string): Promise<void> {
    const bar = item.indexOf('|');
    const kind = item.slice(0, bar);
    const key = parseKeyString(item.slice(bar + 1));
    const controller = this.#controllers.get(kind);
    if (controller === undefined) return;
    const tracking = new TrackingReader(this.#reader);
    const ctx = this.#context(tracking, kind);
    const started = this.#deps.clock.now();
    try {
      const res = await controller.reconcile(ctx, key);
      this.#queue.forget(item);
      if (res.requeueAfterMs !== undefined) this.#queue.addAfter(item, res.requeueAfterMs);
      this.#deps.metrics.reconcileFinished(kind, 'success', (this.#deps.clock.now() - started) / 1000);
    } catch (err) {
      const error = err instanceof Error ? err : new Error(String(err));
      const retryInMs = this.#queue.addRateLimited(item);
      this.#deps.metrics.reconcileFinished(kind, 'error', (this.#deps.clock.now() - started) / 1000);
      ctx.log.error({ name: key.name, namespace: key.namespace, err: error, retryInMs }, 'reconcile failed');
      await controller.reportError(this.#context(this.#reader, kind), key, error);
    } finally {
      if (this.#reader.get(CUSTOM[kind]!, key) === undefined) this.#index.forget(item);
      else this.#index.record(item, tracking.deps);
    }
  }

  async #worker(): Promise<void> {
    for (;;) {
      const item = await this.#queue.get();
      if (item === undefined) return;
      try {
        await this.#work(item);
      } finally {
        this.#queue.done(item);
        this.#deps.metrics.setQueueDepth(this.#queue.length);
      }
    }
  }

  /** run starts informers, waits for their caches, then reconciles until signal aborts. */
  async run(signal: AbortSignal): Promise<void> {
    const informers = [...this.#informers.values()].map((i) => i.run(signal));
    await Promise.all([...this.#informers.values()].map((i) => i.waitForSync(signal)));
    this.#deps.log.info({ informers: this.#informers.size, workers: this.#deps.options.workers }, 'caches synced; reconciling');
    const stop = () => this.#queue.shutDown();
    signal.addEventListener('abort', stop, { once: true });
    if (signal.aborted) stop();
    const workers = Array.from({ length: this.#deps.options.workers }, () => this.#worker());
    await Promise.all([...workers, ...informers]);
  }
}
