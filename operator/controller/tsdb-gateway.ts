// TSDBGateway controller: resolves key sources and the target, applies the children and
// reports status. A missing key Secret/ConfigMap stops changes (the running Pods keep their
// keys) and marks the gateway Degraded until the key appears.
import type { TSDBGateway } from '../api/resources.ts';
import { templateImages } from '../factory/common/images.ts';
import { buildTSDBGateway } from '../factory/gateway/build.ts';
import { BUILTIN, customType } from '../k8s/resources.ts';
import type { KubeObject, ObjectKey } from '../k8s/types.ts';
import { workloadName } from '../names.ts';
import { applyChildren, childKey } from '../reconcile/apply.ts';
import { buildOptionsFor, recordImages } from '../reconcile/images.ts';
import { pruneChildren } from '../reconcile/prune.ts';
import { componentStatus, deploymentState, observedState } from '../reconcile/rollout.ts';
import type { RolloutState } from '../reconcile/rollout.ts';
import { conditionsFor, previousConditions, writeStatus } from '../reconcile/status.ts';
import type { Outcome } from '../reconcile/status.ts';
import { loadResource, reportReconcileError } from './base.ts';
import type { ReconcileContext } from '../reconcile/context.ts';
import type { KindController, ReconcileResult } from './context.ts';
import { configMapValue, secretValue } from './secrets.ts';

type Problem = NonNullable<Outcome['error']>;

function readPublicKeys(ctx: ReconcileContext, cr: TSDBGateway): string[] | Problem {
  const ns = cr.metadata.namespace!;
  const keys: string[] = [];
  for (const src of cr.spec.auth.publicKeys ?? []) {
    const ref = src.secretKeyRef ?? src.configMapKeyRef!;
    const res = src.secretKeyRef !== undefined ? secretValue(ctx.reader, ns, ref) : configMapValue(ctx.reader, ns, ref);
    const what = src.secretKeyRef !== undefined ? 'Secret' : 'ConfigMap';
    if (res.found !== 'ok') return { reason: 'PublicKeyNotFound', message: `public key ${what} "${ref.name}" ${res.found === 'secret-missing' ? 'not found' : `has no key "${ref.key}"`}` };
    keys.push(res.value);
  }
  return keys;
}

function missingTarget(ctx: ReconcileContext, cr: TSDBGateway): Problem | undefined {
  const ref = cr.spec.target.ref;
  if (ref === undefined) return undefined;
  const ns = ref.namespace ?? cr.metadata.namespace!;
  if (ctx.reader.get(customType(ref.kind), { namespace: ns, name: ref.name }) !== undefined) return undefined;
  return { reason: 'TargetNotFound', message: `${ref.kind} "${ns}/${ref.name}" not found; the gateway forwards to its Service names anyway` };
}

/** tsdbGatewayController reconciles TSDBGateway resources. */
export const tsdbGatewayController: KindController = {
  kind: 'TSDBGateway',

  async reconcile(ctx: ReconcileContext, key: ObjectKey): Promise<ReconcileResult> {
    const cr = loadResource<TSDBGateway>(ctx, 'TSDBGateway', key);
    if (cr === undefined) return {};
    const keys = readPublicKeys(ctx, cr);
    const error = Array.isArray(keys) ? missingTarget(ctx, cr) : keys;
    let dep: KubeObject | undefined = ctx.reader.get(BUILTIN.deployment, { namespace: key.namespace, name: workloadName('tsdb-gateway', key.name) });
    let state: RolloutState;
    if (cr.spec.paused || !Array.isArray(keys)) {
      state = observedState(dep, 'the gateway Deployment');
    } else {
      const desired = buildTSDBGateway(cr, buildOptionsFor(ctx, cr), { publicKeys: keys });
      await recordImages(ctx, cr, templateImages(desired));
      const live = await applyChildren(ctx, cr, desired);
      await pruneChildren(ctx, cr, new Set(desired.map(childKey)));
      dep = [...live.values()].find((o) => o.kind === 'Deployment');
      state = deploymentState(dep!);
    }
    const progressing = state.done ? undefined : { reason: state.reason, message: state.message };
    const generation = cr.metadata.generation ?? 0;
    const outcome: Outcome = { paused: cr.spec.paused, ...(progressing === undefined ? {} : { progressing }), ...(error === undefined ? {} : { error }) };
    const { conditions, phase } = conditionsFor(previousConditions(cr), outcome, generation, ctx.clock.now(), ctx.options.progressDeadlineMs);
    const gateway = componentStatus(dep, cr.spec.replicas);
    await writeStatus(ctx, cr, { observedGeneration: generation, phase, conditions, gateway, replicas: gateway.readyReplicas, selector: `app.kubernetes.io/instance=${key.name},app.kubernetes.io/managed-by=strata-operator,app.kubernetes.io/name=tsdb-gateway` });
    return progressing === undefined || cr.spec.paused ? {} : { requeueAfterMs: ctx.options.rolloutPollMs };
  },

  reportError: (ctx, key, err) => reportReconcileError(ctx, 'TSDBGateway', key, err),
};
