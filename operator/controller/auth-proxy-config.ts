// The AuthProxy config pipeline shared by the AuthProxy controller (which serves the config)
// and the AuthProxyUser controller (which reports each user's fate): select users, resolve
// them, render. Both run the same pure steps, so they always agree.
import { defaultedSpec } from '../api/defaulted.ts';
import type { AuthProxy, AuthProxyUser } from '../api/resources.ts';
import { renderAuthProxyConfig } from '../factory/authproxy/config.ts';
import type { RenderedConfig, RouteSource } from '../factory/authproxy/config.ts';
import { resolveUnauthorized, resolveUser } from '../factory/authproxy/users.ts';
import type { Lookups, Rejection, ResolvedUser } from '../factory/authproxy/users.ts';
import { BUILTIN, customType } from '../k8s/resources.ts';
import { fromLabelSelector, matches } from '../k8s/selector.ts';
import type { ReconcileContext } from '../reconcile/context.ts';
import { secretValue } from './secrets.ts';

/** ProxyPipeline is the outcome of rendering one proxy's config. */
export interface ProxyPipeline {
  readonly candidates: readonly AuthProxyUser[];
  readonly rendered: RenderedConfig;
  /** unauthorizedProblem is set when the unauthorized_user section had to be left out. */
  readonly unauthorizedProblem?: Rejection;
}

/** userNamespaces lists the namespaces a proxy takes users from. */
export function userNamespaces(ctx: ReconcileContext, proxy: AuthProxy): string[] {
  const sel = fromLabelSelector(proxy.spec.userNamespaceSelector);
  if (sel === undefined) return [proxy.metadata.namespace!];
  const watched = ctx.options.watchNamespaces;
  return ctx.reader
    .list(BUILTIN.namespace)
    .filter((ns) => matches(sel, ns.metadata.labels) && (watched === undefined || watched.includes(ns.metadata.name!)))
    .map((ns) => ns.metadata.name!)
    .sort();
}

/** selectedUsers lists the AuthProxyUsers a proxy selects (none without a userSelector). */
export function selectedUsers(ctx: ReconcileContext, proxy: AuthProxy): AuthProxyUser[] {
  const sel = fromLabelSelector(proxy.spec.userSelector);
  if (sel === undefined) return [];
  return userNamespaces(ctx, proxy)
    .flatMap((ns) => ctx.reader.list(customType('AuthProxyUser'), ns))
    .filter((u) => u.metadata.deletionTimestamp === undefined && matches(sel, u.metadata.labels))
    .map((u) => defaultedSpec(u) as AuthProxyUser);
}

/** lookups gives the resolver cached, dependency-recording access to Secrets and TSDB resources. */
export function lookups(ctx: ReconcileContext): Lookups {
  return {
    secretValue: (ns, ref) => secretValue(ctx.reader, ns, ref),
    tsdbExists: (kind, ns, name) => ctx.reader.get(customType(kind), { namespace: ns, name }) !== undefined,
  };
}

/** runPipeline selects, resolves and renders the config of a (defaulted) proxy. */
export function runPipeline(ctx: ReconcileContext, proxy: AuthProxy): ProxyPipeline {
  const l = lookups(ctx);
  const candidates = selectedUsers(ctx, proxy);
  const resolved: ResolvedUser[] = [];
  const rejected = new Map<string, Rejection>();
  for (const u of candidates) {
    const r = resolveUser(u, l);
    if ('reason' in r) rejected.set(`${u.metadata.namespace}/${u.metadata.name}`, r);
    else resolved.push(r);
  }
  let unauthorized: RouteSource | undefined;
  let unauthorizedProblem: Rejection | undefined;
  if (proxy.spec.unauthorizedUser !== undefined) {
    const r = resolveUnauthorized(proxy.spec.unauthorizedUser, proxy.metadata.namespace!, l);
    if ('reason' in r) unauthorizedProblem = r;
    else unauthorized = r;
  }
  const rendered = renderAuthProxyConfig(proxy.spec, resolved, rejected, unauthorized);
  return { candidates, rendered, ...(unauthorizedProblem === undefined ? {} : { unauthorizedProblem }) };
}
