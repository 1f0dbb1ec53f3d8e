// AuthProxyUser resolution: credentials from Secrets, targets from URLs or TSDB references.
// A user that cannot be resolved is rejected with a reason; it never breaks the other users.
import type { TargetSpec } from '../../api/auth-proxy-user.ts';
import type { UnauthorizedUserSpec } from '../../api/auth-proxy.ts';
import type { RouteSource } from './config.ts';
import type { SecretKeyRef } from '../../api/common.ts';
import type { AuthProxyUser } from '../../api/resources.ts';
import { tsdbEndpoints } from '../common/refs.ts';

/** Lookups give the resolver read access to the objects a user refers to. */
export interface Lookups {
  /** secretValue returns the decoded value of a Secret key, undefined when the Secret or key is missing. */
  secretValue(namespace: string, ref: SecretKeyRef): { found: 'secret-missing' | 'key-missing' } | { found: 'ok'; value: string };
  /** tsdbExists reports whether a TSDBSingle/TSDBCluster exists. */
  tsdbExists(kind: string, namespace: string, name: string): boolean;
}

/** Rejection says why a user was left out; reason is a CamelCase condition reason. */
export interface Rejection {
  readonly reason: 'IPFiltersNeedEULA' | 'MissingCredentials' | 'SecretNotFound' | 'SecretKeyNotFound' | 'TargetNotFound' | 'InvalidPath' | 'DuplicateCredentials';
  readonly message: string;
}

/** ResolvedTarget is a target URL with the paths routed to it (none: all paths). */
export interface ResolvedTarget {
  readonly url: string;
  readonly paths: readonly string[];
  readonly headers: readonly string[];
}

/** Credentials identify a user; `identity` is the comparison key for duplicate detection. */
export type Credentials =
  | { readonly type: 'basic'; readonly username: string; readonly password: string; readonly identity: string }
  | { readonly type: 'bearer'; readonly token: string; readonly identity: string };

/** ResolvedUser is a user ready to render. */
export interface ResolvedUser {
  readonly key: string;
  readonly user: AuthProxyUser;
  readonly credentials: Credentials;
  readonly targets: readonly ResolvedTarget[];
}

/** targetURL resolves one target; undefined when its reference does not exist. */
export function targetURL(t: TargetSpec, namespace: string, lookups: Pick<Lookups, 'tsdbExists'>): string | undefined {
  if (t.url !== undefined) return t.url;
  const ref = t.ref!;
  if (!lookups.tsdbExists(ref.kind, ref.namespace ?? namespace, ref.name)) return undefined;
  const ep = tsdbEndpoints(ref, namespace);
  if (!ep.cluster) return ep.read;
  return t.component === 'insert' ? `${ep.write}/insert/${t.tenant}/prometheus` : `${ep.read}/select/${t.tenant}/prometheus`;
}

/** checkPaths rejects path patterns that are not valid regular expressions. */
export function checkPaths(paths: readonly string[]): Rejection | undefined {
  for (const p of paths) {
    try {
      new RegExp(`^(?:${p})$`);
    } catch (err) {
      return { reason: 'InvalidPath', message: `path ${JSON.stringify(p)} is not a valid regular expression: ${(err as Error).message}` };
    }
  }
  return undefined;
}

function resolveSecret(ns: string, ref: SecretKeyRef, what: string, lookups: Lookups): string | Rejection {
  const res = lookups.secretValue(ns, ref);
  if (res.found === 'ok') return res.value;
  if (res.found === 'secret-missing') return { reason: 'SecretNotFound', message: `${what} Secret "${ref.name}" not found` };
  return { reason: 'SecretKeyNotFound', message: `${what} Secret "${ref.name}" has no key "${ref.key}"` };
}

function resolveCredentials(user: AuthProxyUser, lookups: Lookups): Credentials | Rejection | undefined {
  const ns = user.metadata.namespace!;
  const spec = user.spec;
  if (spec.bearerTokenRef !== undefined) {
    const token = resolveSecret(ns, spec.bearerTokenRef, 'bearer token', lookups);
    if (typeof token !== 'string') return token;
    return { type: 'bearer', token, identity: `basic:${token}:` };
  }
  if (spec.username === undefined) return undefined;
  let password = '';
  if (spec.passwordRef !== undefined) {
    const p = resolveSecret(ns, spec.passwordRef, 'password', lookups);
    if (typeof p !== 'string') return p;
    password = p;
  }
  return { type: 'basic', username: spec.username, password, identity: `basic:${spec.username}:${password}` };
}

/** resolveUser resolves credentials and targets of a user, or says why it cannot be served. */
export function resolveUser(user: AuthProxyUser, lookups: Lookups): ResolvedUser | Rejection {
  const ns = user.metadata.namespace!;
  const credentials = resolveCredentials(user, lookups);
  if (credentials === undefined) return { reason: 'MissingCredentials', message: 'set username or bearerTokenRef' };
  if ('reason' in credentials) return credentials;
  const targets: ResolvedTarget[] = [];
  for (const t of user.spec.targets ?? []) {
    const url = targetURL(t, ns, lookups);
    if (url === undefined) return { reason: 'TargetNotFound', message: `${t.ref!.kind} "${t.ref!.namespace ?? ns}/${t.ref!.name}" not found` };
    targets.push({ url, paths: t.paths ?? [], headers: t.headers ?? [] });
  }
  const bad = checkPaths([...(user.spec.targets ?? []).flatMap((t) => t.paths ?? []), ...(user.spec.urlMap ?? []).flatMap((m) => m.srcPaths)]);
  if (bad !== undefined) return bad;
  return { key: `${ns}/${user.metadata.name}`, user, credentials, targets };
}

/** resolveUnauthorized resolves the proxy's unauthorized_user section, or says why it cannot be served. */
export function resolveUnauthorized(spec: UnauthorizedUserSpec, namespace: string, lookups: Pick<Lookups, 'tsdbExists'>): RouteSource | Rejection {
  const targets: ResolvedTarget[] = [];
  for (const t of spec.targets ?? []) {
    const url = targetURL(t, namespace, lookups);
    if (url === undefined) return { reason: 'TargetNotFound', message: `${t.ref!.kind} "${t.ref!.namespace ?? namespace}/${t.ref!.name}" not found` };
    targets.push({ url, paths: t.paths ?? [], headers: t.headers ?? [] });
  }
  const bad = checkPaths([...(spec.targets ?? []).flatMap((t) => t.paths ?? []), ...(spec.urlMap ?? []).flatMap((m) => m.srcPaths)]);
  if (bad !== undefined) return bad;
  return {
    targets,
    ...(spec.urlMap === undefined ? {} : { urlMap: spec.urlMap }),
    ...(spec.defaultURL === undefined ? {} : { defaultURL: spec.defaultURL }),
    ...(spec.headers === undefined ? {} : { headers: spec.headers }),
    ...(spec.ipFilters === undefined ? {} : { ipFilters: spec.ipFilters }),
  };
}
