// TSDBCluster controller: roles roll out in order storage → select → insert. A role's workload
// is applied only once every earlier role runs its current template on ready Pods; storage
// Pods are replaced one at a time through the eviction API.
import type { TSDBCluster } from '../api/resources.ts';
import { templateImages } from '../factory/common/images.ts';
import { buildTSDBCluster } from '../factory/tsdbcluster/build.ts';
import type { ClusterRole, RoleObjects } from '../factory/tsdbcluster/build.ts';
import { BUILTIN } from '../k8s/resources.ts';
import type { KubeObject, ObjectKey } from '../k8s/types.ts';
import { applyChildren, childKey } from '../reconcile/apply.ts';
import { buildOptionsFor, recordImages } from '../reconcile/images.ts';
import { pruneChildren } from '../reconcile/prune.ts';
import { componentStatus, deploymentState, observedState, rollStatefulSet } from '../reconcile/rollout.ts';
import type { RolloutState } from '../reconcile/rollout.ts';
import { conditionsFor, previousConditions, writeStatus } from '../reconcile/status.ts';
import { loadResource, reportReconcileError } from './base.ts';
import type { ReconcileContext } from '../reconcile/context.ts';
import type { KindController, ReconcileResult } from './context.ts';

interface RoleResult {
  readonly role: ClusterRole;
  readonly workload: KubeObject | undefined;
  readonly state: RolloutState;
}

function cached(ctx: ReconcileContext, role: RoleObjects): KubeObject | undefined {
  const type = role.workload.kind === 'StatefulSet' ? BUILTIN.statefulSet : BUILTIN.deployment;
  return ctx.reader.get(type, { namespace: role.workload.metadata.namespace!, name: role.workload.metadata.name! });
}

async function rollRole(ctx: ReconcileContext, cr: TSDBCluster, role: RoleObjects, gate: RoleResult | undefined): Promise<RoleResult> {
  await applyChildren(ctx, cr, role.others);
  if (gate !== undefined && !gate.state.done) {
    const workload = cached(ctx, role);
    return { role: role.role, workload, state: { done: false, reason: 'WaitingForPreviousRole', message: `${role.role} waits for ${gate.role}: ${gate.state.message}` } };
  }
  const live = await applyChildren(ctx, cr, [role.workload]);
  const workload = live.get(childKey(role.workload))!;
  const state = workload.kind === 'StatefulSet' ? await rollStatefulSet(ctx, workload, cr) : deploymentState(workload);
  return { role: role.role, workload, state };
}

async function rollAll(ctx: ReconcileContext, cr: TSDBCluster, roles: readonly RoleObjects[]): Promise<RoleResult[]> {
  // Every role's image is recorded now, even for roles still waiting for an earlier one.
  await recordImages(ctx, cr, templateImages(roles.map((r) => r.workload)));
  const results: RoleResult[] = [];
  for (const role of roles) {
    const gate = results.find((r) => !r.state.done);
    results.push(await rollRole(ctx, cr, role, gate));
  }
  await pruneChildren(ctx, cr, new Set(roles.flatMap((r) => [...r.others, r.workload]).map(childKey)));
  return results;
}

/** tsdbClusterController reconciles TSDBCluster resources. */
export const tsdbClusterController: KindController = {
  kind: 'TSDBCluster',

  async reconcile(ctx: ReconcileContext, key: ObjectKey): Promise<ReconcileResult> {
    const cr = loadResource<TSDBCluster>(ctx, 'TSDBCluster', key);
    if (cr === undefined) return {};
    const roles = buildTSDBCluster(cr, buildOptionsFor(ctx, cr));
    const results = cr.spec.paused
      ? roles.map((r) => {
          const workload = cached(ctx, r);
          return { role: r.role, workload, state: observedState(workload, `the ${r.role} workload`) };
        })
      : await rollAll(ctx, cr, roles);
    const pending = results.find((r) => !r.state.done);
    const progressing = pending === undefined ? undefined : { reason: pending.state.reason, message: `${pending.role}: ${pending.state.message}` };
    const generation = cr.metadata.generation ?? 0;
    const { conditions, phase } = conditionsFor(previousConditions(cr), { paused: cr.spec.paused, ...(progressing === undefined ? {} : { progressing }) }, generation, ctx.clock.now(), ctx.options.progressDeadlineMs);
    const status: Record<string, unknown> = { observedGeneration: generation, phase, conditions };
    for (const r of results) status[r.role] = componentStatus(r.workload, cr.spec[r.role].replicas);
    await writeStatus(ctx, cr, status);
    return pending === undefined || cr.spec.paused ? {} : { requeueAfterMs: ctx.options.rolloutPollMs };
  },

  reportError: (ctx, key, err) => reportReconcileError(ctx, 'TSDBCluster', key, err),
};
