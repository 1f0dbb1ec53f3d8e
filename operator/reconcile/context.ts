// What a reconcile function gets: API access, cached reads, events, logging, settings and time.
// It lives with the reconcile helpers (not in controller/) so they depend on nothing of the
// controller machinery; the controller builds one per reconcile call and passes it down.
import type { BuildOptions } from '../factory/common/options.ts';
import type { KubeClient } from '../k8s/client.ts';
import type { ResourceType } from '../k8s/resources.ts';
import type { KubeObject, ObjectKey } from '../k8s/types.ts';
import type { Clock } from '../runtime/clock.ts';
import type { EventRecorder } from '../runtime/events.ts';
import type { Logger } from '../runtime/logger.ts';

/** Reader reads from the informer caches; no API calls. */
export interface Reader {
  get(type: ResourceType, key: ObjectKey): KubeObject | undefined;
  /** list returns cached objects of a type, optionally of one namespace. */
  list(type: ResourceType, namespace?: string): KubeObject[];
}

/** ReconcileOptions are the operator-wide settings a reconcile reads (from flags in cmd, literals in tests). */
export interface ReconcileOptions {
  readonly build: BuildOptions;
  readonly fieldManager: string;
  /** watchNamespaces limits the operator to these namespaces; undefined watches all. */
  readonly watchNamespaces: readonly string[] | undefined;
  /** progressDeadlineMs: a rollout stuck this long marks the resource Degraded. */
  readonly progressDeadlineMs: number;
  /** rolloutPollMs: how soon a resource in rollout is looked at again (events also wake it). */
  readonly rolloutPollMs: number;
}

/** ReconcileContext is passed to every reconcile call; `reader` records what was read. */
export interface ReconcileContext {
  readonly client: KubeClient;
  readonly reader: Reader;
  /** untracked reads do not make the resource depend on what they return (pruning scans). */
  readonly untracked: Reader;
  readonly events: EventRecorder;
  readonly log: Logger;
  readonly options: ReconcileOptions;
  readonly clock: Clock;
}
