// The builders' example inputs, shared by tests: the fixtures of operator/factory/testdata (pinned
// by goldens in build.test.ts), the strata.dev examples of docs/, and one function that builds any
// of them the way its controller does, with the Secrets and resources the fixtures refer to.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { loadAll } from 'js-yaml';
import { defaultedSpec } from '../api/defaulted.ts';
import type { AuthProxy, AuthProxyUser, TSDBCluster, TSDBGateway, TSDBSingle } from '../api/resources.ts';
import type { KubeObject } from '../k8s/types.ts';
import { buildAuthProxy } from './authproxy/build.ts';
import { renderAuthProxyConfig } from './authproxy/config.ts';
import type { RenderedConfig } from './authproxy/config.ts';
import { resolveUnauthorized, resolveUser } from './authproxy/users.ts';
import type { Lookups, Rejection, ResolvedUser } from './authproxy/users.ts';
import type { BuildOptions } from './common/options.ts';
import { buildTSDBGateway } from './gateway/build.ts';
import { buildTSDBCluster } from './tsdbcluster/build.ts';
import { buildTSDBSingle } from './tsdbsingle/build.ts';

/** FIXTURE_DIR holds the builder fixtures (x.yaml) and their goldens (x.golden.yaml). */
export const FIXTURE_DIR = join(import.meta.dirname, 'testdata');
/** FIXTURE_OPTIONS are the operator defaults the goldens were built with. */
export const FIXTURE_OPTIONS: BuildOptions = { images: { tsdb: 'strata/tsdb:0.1.0', gateway: 'strata/gateway:0.1.0', authproxy: 'strata/authproxy:0.1.0', backupmanager: 'strata/backupmanager:0.1.0' } };

const SECRETS: Record<string, Record<string, string>> = {
  'team-a-credentials': { password: 's3cret' },
  'grafana-token': { token: 'tok-123' },
};
/** FIXTURE_LOOKUPS: the Secrets and TSDB resources that fixtures and docs examples refer to. */
export const FIXTURE_LOOKUPS: Lookups = {
  secretValue: (_ns, ref) => {
    const s = SECRETS[ref.name];
    if (s === undefined) return { found: 'secret-missing' };
    const v = s[ref.key];
    return v === undefined ? { found: 'key-missing' } : { found: 'ok', value: v };
  },
  tsdbExists: (kind, _ns, name) => (kind === 'TSDBCluster' && name === 'prod') || (kind === 'TSDBSingle' && name === 'main'),
};

/** fixtureFiles lists the builder inputs of FIXTURE_DIR (not goldens, not the user list). */
export function fixtureFiles(): string[] {
  return readdirSync(FIXTURE_DIR).filter((f) => f.endsWith('.yaml') && !f.endsWith('.golden.yaml') && f !== 'authproxy-users.yaml').sort();
}

/** fixtureUsers are the AuthProxyUsers of testdata/authproxy-users.yaml, defaulted. */
export function fixtureUsers(): AuthProxyUser[] {
  return loadAll(readFileSync(join(FIXTURE_DIR, 'authproxy-users.yaml'), 'utf8')).map((u) => defaultedSpec(u as AuthProxyUser));
}

/** strataExamples extracts the strata.dev objects from the ```yaml blocks of a Markdown file. */
export function strataExamples(markdown: string): KubeObject[] {
  const blocks = [...markdown.matchAll(/```yaml\n([\s\S]*?)```/g)].map((m) => m[1]!);
  return blocks.flatMap((b) => loadAll(b) as KubeObject[]).filter((o) => o?.apiVersion === 'strata.dev/v1beta1');
}

/** renderProxyConfig resolves users against lookups as the AuthProxy controller does and renders the config. */
export function renderProxyConfig(proxy: AuthProxy, users: readonly AuthProxyUser[], lookups: Lookups = FIXTURE_LOOKUPS): RenderedConfig {
  const resolved: ResolvedUser[] = [];
  const rejected = new Map<string, Rejection>();
  for (const u of users) {
    const r = resolveUser(u, lookups);
    if ('reason' in r) rejected.set(`${u.metadata.namespace}/${u.metadata.name}`, r);
    else resolved.push(r);
  }
  const unauth = proxy.spec.unauthorizedUser === undefined ? undefined : resolveUnauthorized(proxy.spec.unauthorizedUser, proxy.metadata.namespace!, lookups);
  if (unauth !== undefined && 'reason' in unauth) throw new Error(`cannot render AuthProxy "${proxy.metadata.name}": ${unauth.message}`);
  return renderAuthProxyConfig(proxy.spec, resolved, rejected, unauth);
}

/**
 * buildResource defaults a strata.dev object and builds its objects with its kind's builder;
 * AuthProxies get their config rendered from `users`. Throws for kinds without a builder.
 */
export function buildResource(obj: KubeObject, opts: BuildOptions = FIXTURE_OPTIONS, users: readonly AuthProxyUser[] = fixtureUsers()): KubeObject[] {
  const cr = defaultedSpec(obj);
  switch (cr.kind) {
    case 'TSDBSingle':
      return buildTSDBSingle(cr as TSDBSingle, opts);
    case 'TSDBCluster':
      return buildTSDBCluster(cr as TSDBCluster, opts).flatMap((r) => [...r.others, r.workload]);
    case 'TSDBGateway':
      return buildTSDBGateway(cr as TSDBGateway, opts, { publicKeys: ['-----BEGIN PUBLIC KEY-----\nA\n-----END PUBLIC KEY-----\n', 'B'] });
    case 'AuthProxy':
      return buildAuthProxy(cr as AuthProxy, opts, renderProxyConfig(cr as AuthProxy, users).yaml);
    default:
      throw new Error(`no builder for ${cr.kind} "${cr.metadata.name}"`);
  }
}
