// TSDBSingle controller: record the images, apply the children, prune leftovers, roll the Pod
// when its template changes, and report status.
import type { TSDBSingle } from '../api/resources.ts';
import { templateImages } from '../factory/common/images.ts';
import { buildTSDBSingle } from '../factory/tsdbsingle/build.ts';
import { BUILTIN } from '../k8s/resources.ts';
import type { KubeObject, ObjectKey } from '../k8s/types.ts';
import { workloadName } from '../names.ts';
import { applyChildren, childKey } from '../reconcile/apply.ts';
import { buildOptionsFor, recordImages } from '../reconcile/images.ts';
import { pruneChildren } from '../reconcile/prune.ts';
import { componentStatus, observedState, rollStatefulSet } from '../reconcile/rollout.ts';
import type { RolloutState } from '../reconcile/rollout.ts';
import { conditionsFor, previousConditions, writeStatus } from '../reconcile/status.ts';
import { loadResource, reportReconcileError } from './base.ts';
import type { ReconcileContext } from '../reconcile/context.ts';
import type { KindController, ReconcileResult } from './context.ts';

/** tsdbSingleController reconciles TSDBSingle resources. */
export const tsdbSingleController: KindController = {
  kind: 'TSDBSingle',

  async reconcile(ctx: ReconcileContext, key: ObjectKey): Promise<ReconcileResult> {
    const cr = loadResource<TSDBSingle>(ctx, 'TSDBSingle', key);
    if (cr === undefined) return {};
    const desired = buildTSDBSingle(cr, buildOptionsFor(ctx, cr));
    let sts: KubeObject | undefined;
    let rollout: RolloutState | undefined;
    if (cr.spec.paused) {
      sts = ctx.reader.get(BUILTIN.statefulSet, { namespace: key.namespace, name: workloadName('tsdb-single', key.name) });
      rollout = observedState(sts, 'the StatefulSet');
    } else {
      await recordImages(ctx, cr, templateImages(desired));
      const live = await applyChildren(ctx, cr, desired);
      await pruneChildren(ctx, cr, new Set(desired.map(childKey)));
      sts = [...live.values()].find((o) => o.kind === 'StatefulSet');
      rollout = await rollStatefulSet(ctx, sts!, cr);
    }
    const progressing = rollout !== undefined && !rollout.done ? { reason: rollout.reason, message: rollout.message } : undefined;
    const generation = cr.metadata.generation ?? 0;
    const { conditions, phase } = conditionsFor(previousConditions(cr), { paused: cr.spec.paused, ...(progressing === undefined ? {} : { progressing }) }, generation, ctx.clock.now(), ctx.options.progressDeadlineMs);
    await writeStatus(ctx, cr, { observedGeneration: generation, phase, conditions, tsdb: componentStatus(sts, 1) });
    return progressing === undefined || cr.spec.paused ? {} : { requeueAfterMs: ctx.options.rolloutPollMs };
  },

  reportError: (ctx, key, err) => reportReconcileError(ctx, 'TSDBSingle', key, err),
};
