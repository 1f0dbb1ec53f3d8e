// Pieces every top-level controller shares: loading a defaulted resource from the cache, and
// the status write of a failed reconcile.
import { defaultedSpec } from '../api/defaulted.ts';
import { customType } from '../k8s/resources.ts';
import type { KubeObject, ObjectKey } from '../k8s/types.ts';
import { errorStatus, writeStatus } from '../reconcile/status.ts';
import type { ReconcileContext } from '../reconcile/context.ts';

/** loadResource returns the defaulted resource, or undefined when it is gone or being deleted. */
export function loadResource<T extends KubeObject>(ctx: ReconcileContext, kind: string, key: ObjectKey): T | undefined {
  const obj = ctx.reader.get(customType(kind), key);
  if (obj === undefined || obj.metadata.deletionTimestamp !== undefined) return undefined;
  return defaultedSpec(obj) as T;
}

/** reportReconcileError marks the resource Degraded with the error (best effort) and records an event. */
export async function reportReconcileError(ctx: ReconcileContext, kind: string, key: ObjectKey, err: Error): Promise<void> {
  const obj = ctx.untracked.get(customType(kind), key);
  if (obj === undefined) return;
  await ctx.events.record(obj, 'Warning', 'ReconcileError', err.message);
  try {
    await writeStatus(ctx, obj, errorStatus(obj, err, ctx.clock.now(), ctx.options.progressDeadlineMs));
  } catch (statusErr) {
    ctx.log.warn({ kind, name: key.name, namespace: key.namespace, err: statusErr }, 'cannot report the reconcile error in status');
  }
}
