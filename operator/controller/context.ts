// The controller's side of a reconcile: its settings and the contract of a kind controller. The
// context a reconcile gets is reconcile/context.ts.
import type { ObjectKey } from '../k8s/types.ts';
import type { ReconcileContext, ReconcileOptions } from '../reconcile/context.ts';
import type { BackoffOptions } from './work-queue.ts';

/** OperatorOptions are the operator-wide settings: what reconciles read plus the controller's own. */
export interface OperatorOptions extends ReconcileOptions {
  readonly resyncMs: number;
  readonly workers: number;
  readonly backoff: BackoffOptions;
  readonly watchTimeoutSeconds: number;
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
