// Status of top-level resources: Ready / Progressing / Degraded conditions with reasons,
// observedGeneration, and the phase shown in printer columns. Transition times only move when
// a condition's status changes, so re-applying an unchanged status is a no-op.
import type { Condition, Phase } from '../api/status.ts';
import type { ReconcileContext } from './context.ts';
import { isNotFound } from '../k8s/errors.ts';
import type { KubeObject } from '../k8s/types.ts';

/** Outcome is what a reconcile found, before it is turned into conditions. */
export interface Outcome {
  readonly paused: boolean;
  /** progressing is set while a rollout or start-up is under way. */
  readonly progressing?: { readonly reason: string; readonly message: string };
  /** error is set when the reconcile failed or the spec cannot be served. */
  readonly error?: { readonly reason: string; readonly message: string };
}

const iso = (ms: number) => new Date(ms).toISOString().replace(/\.\d+Z$/, 'Z');

function condition(prev: readonly Condition[], type: string, status: boolean, reason: string, message: string, generation: number, now: number): Condition {
  const s = status ? 'True' : 'False';
  const old = prev.find((c) => c.type === type);
  return { type, status: s, reason, message, lastTransitionTime: old !== undefined && old.status === s ? old.lastTransitionTime : iso(now), observedGeneration: generation };
}

/**
 * conditionsFor computes conditions and phase. A rollout that has been progressing longer than
 * progressDeadlineMs also reports Degraded (ProgressDeadlineExceeded), like Deployments do.
 */
export function conditionsFor(prev: readonly Condition[], outcome: Outcome, generation: number, now: number, progressDeadlineMs: number): { conditions: Condition[]; phase: Phase } {
  const progressing = outcome.progressing;
  const cProgressing = outcome.paused
    ? condition(prev, 'Progressing', false, 'Paused', 'spec.paused is set: the operator does not change the children', generation, now)
    : progressing !== undefined
      ? condition(prev, 'Progressing', true, progressing.reason, progressing.message, generation, now)
      : condition(prev, 'Progressing', false, 'RolloutComplete', 'all components run their current spec', generation, now);
  const since = Date.parse(cProgressing.lastTransitionTime);
  const stuck = !outcome.paused && progressing !== undefined && now - since > progressDeadlineMs;
  const degraded =
    outcome.error !== undefined
      ? condition(prev, 'Degraded', true, outcome.error.reason, outcome.error.message, generation, now)
      : stuck
        ? condition(prev, 'Degraded', true, 'ProgressDeadlineExceeded', `no progress for ${Math.round(progressDeadlineMs / 1000)}s: ${progressing.message}`, generation, now)
        : condition(prev, 'Degraded', false, 'AsExpected', 'no problems found', generation, now);
  const ready = outcome.error === undefined && progressing === undefined;
  const cReady = condition(prev, 'Ready', ready, ready ? 'AllComponentsReady' : (outcome.error?.reason ?? progressing?.reason ?? 'NotReady'), ready ? 'all components are ready' : (outcome.error?.message ?? progressing?.message ?? ''), generation, now);
  const phase: Phase = outcome.paused ? 'Paused' : degraded.status === 'True' ? 'Degraded' : ready ? 'Ready' : 'Progressing';
  return { conditions: [cReady, cProgressing, degraded], phase };
}

/** writeStatus applies the full status of a resource under the operator's field manager. */
export async function writeStatus(ctx: ReconcileContext, obj: KubeObject, status: Record<string, unknown>): Promise<void> {
  const patch: KubeObject = { apiVersion: obj.apiVersion, kind: obj.kind, metadata: { name: obj.metadata.name!, namespace: obj.metadata.namespace! }, status };
  try {
    await ctx.client.applyStatus(patch, { fieldManager: ctx.options.fieldManager, force: true });
  } catch (err) {
    // The resource was deleted while we reconciled it: nothing left to report on.
    if (isNotFound(err)) return;
    throw new Error(`cannot update the status of ${obj.kind} "${obj.metadata.name}": ${(err as Error).message}`, { cause: err });
  }
}

/** previousConditions reads the current conditions of a resource. */
export function previousConditions(obj: KubeObject): Condition[] {
  return ((obj['status'] as { conditions?: Condition[] } | undefined)?.conditions ?? []).slice();
}

/**
 * errorStatus builds the status written when a reconcile fails before it could compute one.
 * status.resolvedImages is left out: it has its own field manager (reconcile/images.ts).
 */
export function errorStatus(obj: KubeObject, err: Error, now: number, progressDeadlineMs: number): Record<string, unknown> {
  const { resolvedImages: _images, ...prev } = (obj['status'] as Record<string, unknown> | undefined) ?? {};
  const generation = obj.metadata.generation ?? 0;
  const { conditions, phase } = conditionsFor(previousConditions(obj), { paused: false, error: { reason: 'ReconcileError', message: err.message.slice(0, 4096) } }, generation, now, progressDeadlineMs);
  return { ...prev, observedGeneration: generation, conditions, phase };
}
