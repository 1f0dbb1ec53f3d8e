// What a reconcile function gets: API access, cached reads, events, logging and settings.
import type { BuildOptions } from '../factory/common/options.ts';
import type { KubeClient } from '../k8s/client.ts';
import type { ResourceType } from '../k8s/resources.ts';
import type { KubeObject, ObjectKey } from '../k8s/types.ts';
import type { Clock } from './clock.ts';
import type { EventRecorder } from './events.ts';
import type { Logger } from './logger.ts';
import type { BackoffOptions } from './work-queue.ts';

/** Reader reads from the informer caches; no API calls. */
export interface Reader {
  get(type: ResourceType, key: ObjectKey): KubeObject | undefined;
  /** list returns cached objects of a type, optionally of one namespace. */
  list(type: ResourceType, namespace?: string): KubeObject[];
}

/** OperatorOptions are the operator-wide settings (from flags in cmd, literals in tests). */
export interface OperatorOptions {
  readonly build: BuildOptions;
  readonly fieldManager: string;
  /** watchNamespaces limits the operator to these namespaces; undefined watches all. */
  readonly watchNamespaces: readonly string[] | undefined;
  /** progressDeadlineMs: a rollout stuck this long marks the resource Degraded. */
  readonly progressDeadlineMs: number;
  /** rolloutPollMs: how soon a resource in rollout is looked at again (events also wake it). */
  readonly rolloutPollMs: number;
  readonly resyncMs: number;
  readonly workers: number;
  readonly backoff: BackoffOptions;
  readonly watchTimeoutSeconds: number;
}

/** ReconcileContext is passed to every reconcile call; `reader` records what was read. */
export interface ReconcileContext {
  readonly client: KubeClient;
  readonly reader: Reader;
  /** untracked reads do not make the resource depend on what they return (pruning scans). */
  readonly untracked: Reader;
  readonly events: EventRecorder;
  readonly log: Logger;
  readonly options: OperatorOptions;
  readonly clock: Clock;
}

/** ReconcileResult asks for another run after a delay (rollouts in progress). */
export interface ReconcileResult {
  readonly requeueAfterMs?: number;
}

/** KindController reconciles one strata.dev kind. */
export interface KindController {
  readonly kind: string;
  reconcile(ctx: ReconcileContext, key: ObjectKey): Promise<ReconcileResult>;
  /** reportError records a failed reconcile on the resource's status (best effort). */
  reportError(ctx: ReconcileContext, key: ObjectKey, err: Error): Promise<void>;
}
