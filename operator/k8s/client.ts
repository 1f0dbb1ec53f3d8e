// KubeClient: the operator's only door to the Kubernetes API. The real implementation
// (rest-client.ts) wraps @kubernetes/client-node; fake/ holds an in-memory one for tests.
import type { ResourceType } from './resources.ts';
import type { KubeObject, ObjectKey } from './types.ts';

/** ListResult is one consistent list and the resourceVersion to watch from. */
export interface ListResult {
  readonly items: KubeObject[];
  readonly resourceVersion: string;
}

/** WatchEvent is one change notification. BOOKMARK carries only a resourceVersion. */
export interface WatchEvent {
  readonly type: 'ADDED' | 'MODIFIED' | 'DELETED' | 'BOOKMARK';
  readonly object: KubeObject;
}

/** ListOptions narrow a list or watch; namespace undefined means all namespaces. */
export interface ListOptions {
  readonly namespace?: string;
  readonly labelSelector?: string;
}

/** WatchOptions start a watch after `resourceVersion` (from a list or the last event). */
export interface WatchOptions extends ListOptions {
  readonly resourceVersion: string;
  /** timeoutSeconds asks the server to end the watch; the informer then resumes it. */
  readonly timeoutSeconds?: number;
  readonly signal: AbortSignal;
}

/** ApplyOptions of server-side apply: one field manager owns what the operator sets. */
export interface ApplyOptions {
  readonly fieldManager: string;
  readonly force: boolean;
}

/** DeleteOptions: uid is a precondition, so a recreated object of the same name is not deleted. */
export interface DeleteOptions {
  readonly propagationPolicy?: 'Background' | 'Foreground' | 'Orphan';
  readonly uid?: string;
}

/**
 * KubeClient performs API calls. Every method may reject with KubeApiError (status 404, 409,
 * 410, 429, 5xx) or a network error; callers retry through the work queue. Safe for concurrent use.
 */
export interface KubeClient {
  /** get returns the object, or undefined when it does not exist. */
  get(type: ResourceType, key: ObjectKey): Promise<KubeObject | undefined>;
  list(type: ResourceType, opts: ListOptions): Promise<ListResult>;
  /**
   * watch streams events after opts.resourceVersion to onEvent, in order, until the server ends
   * the stream (resolves) or it fails (rejects; KubeApiError 410 when the version is too old).
   */
  watch(type: ResourceType, opts: WatchOptions, onEvent: (event: WatchEvent) => void): Promise<void>;
  /** apply is server-side apply of a partial object (apiVersion, kind, metadata.name required). */
  apply(obj: KubeObject, opts: ApplyOptions): Promise<KubeObject>;
  /** applyStatus is server-side apply on the status subresource. */
  applyStatus(obj: KubeObject, opts: ApplyOptions): Promise<KubeObject>;
  /** create fails with 409 AlreadyExists when the name is taken. */
  create(obj: KubeObject): Promise<KubeObject>;
  /** replace is an update guarded by metadata.resourceVersion (409 Conflict when stale). */
  replace(obj: KubeObject): Promise<KubeObject>;
  /** delete returns false when the object was already gone. */
  delete(type: ResourceType, key: ObjectKey, opts?: DeleteOptions): Promise<boolean>;
  /** evict asks to evict a Pod through the eviction API; 429 when a PodDisruptionBudget forbids it. */
  evict(key: ObjectKey): Promise<void>;
}
