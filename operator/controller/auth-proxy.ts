// AuthProxy controller: renders the selected AuthProxyUsers into the config Secret (rejected
// users are left out and reported on their own status) and runs the proxy Deployment.
import type { AuthProxy } from '../api/resources.ts';
import { templateImages } from '../factory/common/images.ts';
import { buildAuthProxy } from '../factory/authproxy/build.ts';
import { BUILTIN, customType } from '../k8s/resources.ts';
import type { KubeObject, ObjectKey } from '../k8s/types.ts';
import { parseKeyString } from '../k8s/types.ts';
import { workloadName } from '../names.ts';
import { applyChildren, childKey } from '../reconcile/apply.ts';
import { buildOptionsFor, recordImages } from '../reconcile/images.ts';
import { pruneChildren } from '../reconcile/prune.ts';
import { componentStatus, deploymentState, observedState } from '../reconcile/rollout.ts';
import type { RolloutState } from '../reconcile/rollout.ts';
import { conditionsFor, previousConditions, writeStatus } from '../reconcile/status.ts';
import type { Outcome } from '../reconcile/status.ts';
import { runPipeline } from './auth-proxy-config.ts';
import { loadResource, reportReconcileError } from './base.ts';
import type { ReconcileContext } from '../reconcile/context.ts';
import type { KindController, ReconcileResult } from './context.ts';

/** authProxyController reconciles AuthProxy resources. */
export const authProxyController: KindController = {
  kind: 'AuthProxy',

  async reconcile(ctx: ReconcileContext, key: ObjectKey): Promise<ReconcileResult> {
    const proxy = loadResource<AuthProxy>(ctx, 'AuthProxy', key);
    if (proxy === undefined) return {};
    const pipeline = runPipeline(ctx, proxy);
    let dep: KubeObject | undefined;
    let state: RolloutState;
    if (proxy.spec.paused) {
      dep = ctx.reader.get(BUILTIN.deployment, { namespace: key.namespace, name: workloadName('authproxy', key.name) });
      state = observedState(dep, 'the auth proxy Deployment');
    } else {
      const desired = buildAuthProxy(proxy, buildOptionsFor(ctx, proxy), pipeline.rendered.yaml);
      await recordImages(ctx, proxy, templateImages(desired));
      const live = await applyChildren(ctx, proxy, desired);
      await pruneChildren(ctx, proxy, new Set(desired.map(childKey)));
      dep = [...live.values()].find((o) => o.kind === 'Deployment');
      state = deploymentState(dep!);
      for (const [userKey, why] of pipeline.rendered.rejected) {
        const user = ctx.untracked.get(customType('AuthProxyUser'), parseKeyString(userKey));
        if (user !== undefined) await ctx.events.record(user, 'Warning', why.reason, `left out of AuthProxy ${key.namespace}/${key.name}: ${why.message}`);
      }
    }
    const problem = pipeline.unauthorizedProblem;
    const error = problem === undefined ? undefined : { reason: 'InvalidUnauthorizedUser', message: `unauthorizedUser left out: ${problem.message}` };
    const progressing = state.done ? undefined : { reason: state.reason, message: state.message };
    const generation = proxy.metadata.generation ?? 0;
    const outcome: Outcome = { paused: proxy.spec.paused, ...(progressing === undefined ? {} : { progressing }), ...(error === undefined ? {} : { error }) };
    const { conditions, phase } = conditionsFor(previousConditions(proxy), outcome, generation, ctx.clock.now(), ctx.options.progressDeadlineMs);
    const authproxy = componentStatus(dep, proxy.spec.replicas);
    await writeStatus(ctx, proxy, {
      observedGeneration: generation,
      phase,
      conditions,
      authproxy,
      users: pipeline.rendered.accepted.length,
      rejectedUsers: pipeline.rendered.rejected.size,
      replicas: authproxy.readyReplicas,
      selector: `app.kubernetes.io/instance=${key.name},app.kubernetes.io/managed-by=strata-operator,app.kubernetes.io/name=authproxy`,
    });
    return progressing === undefined || proxy.spec.paused ? {} : { requeueAfterMs: ctx.options.rolloutPollMs };
  },

  reportError: (ctx, key, err) => reportReconcileError(ctx, 'AuthProxy', key, err),
};
