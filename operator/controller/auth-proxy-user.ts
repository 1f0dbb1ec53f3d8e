// AuthProxyUser controller: reports, on the user's own status, which AuthProxies serve it and
// why any of them left it out. It writes nothing else; the AuthProxy controller renders configs.
import type { Condition } from '../api/status.ts';
import type { AuthProxy, AuthProxyUser } from '../api/resources.ts';
import { defaultedSpec } from '../api/defaulted.ts';
import { customType } from '../k8s/resources.ts';
import { fromLabelSelector, matches } from '../k8s/selector.ts';
import type { ObjectKey } from '../k8s/types.ts';
import { writeStatus } from '../reconcile/status.ts';
import { runPipeline, userNamespaces } from './auth-proxy-config.ts';
import { loadResource } from './base.ts';
import type { ReconcileContext } from '../reconcile/context.ts';
import type { KindController, ReconcileResult } from './context.ts';

const iso = (ms: number) => new Date(ms).toISOString().replace(/\.\d+Z$/, 'Z');

function readyCondition(prev: AuthProxyUser, status: boolean, reason: string, message: string, now: number): Condition {
  const old = ((prev.status?.conditions ?? []) as Condition[]).find((c) => c.type === 'Ready');
  const s = status ? 'True' : 'False';
  return { type: 'Ready', status: s, reason, message, lastTransitionTime: old?.status === s ? old.lastTransitionTime : iso(now), observedGeneration: prev.metadata.generation ?? 0 };
}

function selectingProxies(ctx: ReconcileContext, user: AuthProxyUser): AuthProxy[] {
  return ctx.reader
    .list(customType('AuthProxy'))
    .filter((p) => p.metadata.deletionTimestamp === undefined)
    .map((p) => defaultedSpec(p) as AuthProxy)
    .filter((p) => {
      const sel = fromLabelSelector(p.spec.userSelector);
      return sel !== undefined && matches(sel, user.metadata.labels) && userNamespaces(ctx, p).includes(user.metadata.namespace!);
    })
    .sort((a, b) => `${a.metadata.namespace}/${a.metadata.name}`.localeCompare(`${b.metadata.namespace}/${b.metadata.name}`));
}

/** authProxyUserController writes the status of AuthProxyUsers (which proxies serve them, or why not). */
export const authProxyUserController: KindController = {
  kind: 'AuthProxyUser',

  async reconcile(ctx: ReconcileContext, key: ObjectKey): Promise<ReconcileResult> {
    const user = loadResource<AuthProxyUser>(ctx, 'AuthProxyUser', key);
    if (user === undefined) return {};
    const userKey = `${key.namespace}/${key.name}`;
    const proxies = selectingProxies(ctx, user);
    const serving: string[] = [];
    const problems: string[] = [];
    let reason = 'Accepted';
    for (const p of proxies) {
      const why = runPipeline(ctx, p).rendered.rejected.get(userKey);
      const name = `${p.metadata.namespace}/${p.metadata.name}`;
      if (why === undefined) serving.push(name);
      else {
        reason = why.reason;
        problems.push(`${name}: ${why.message}`);
      }
    }
    const now = ctx.clock.now();
    const phase = proxies.length === 0 ? 'Unselected' : problems.length > 0 ? 'Rejected' : 'Accepted';
    const condition =
      phase === 'Unselected'
        ? readyCondition(user, false, 'NotSelected', 'no AuthProxy selects this user', now)
        : phase === 'Rejected'
          ? readyCondition(user, false, reason, problems.join('; '), now)
          : readyCondition(user, true, 'Accepted', `served by ${serving.join(', ')}`, now);
    await writeStatus(ctx, user, { observedGeneration: user.metadata.generation ?? 0, phase, conditions: [condition], authProxies: serving });
    return {};
  },

  async reportError(ctx, key, err) {
    ctx.log.warn({ kind: 'AuthProxyUser', name: key.name, namespace: key.namespace, err }, 'cannot update AuthProxyUser status');
  },
};
