import { load } from 'js-yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BUILTIN } from '../../operator/k8s/resources.ts';
import { cr, Env, NS, OPERATOR_NS, REAL_CRS, secret, testNamespace } from './harness.ts';

const TEAM_B = testNamespace('team-b');
let env: Env;

interface ProxyConfig {
  users?: { username?: string; password?: string; bearer_token?: string; name?: string; url_prefix?: string | string[]; url_map?: unknown[] }[];
  unauthorized_user?: unknown;
}
const config = (): ProxyConfig => {
  const s = env.store.get(BUILTIN.secret, { namespace: NS, name: 'authproxy-front-config' });
  const b64 = (s?.['data'] as Record<string, string> | undefined)?.['config.yaml'];
  return b64 === undefined ? {} : (load(Buffer.from(b64, 'base64').toString()) as ProxyConfig);
};
const usernames = () => (config().users ?? []).map((u) => u.username ?? `token:${u.bearer_token}`).sort();
const user = (name: string, spec: object, ns = NS) => ({ ...cr('AuthProxyUser', name, spec, { proxy: 'front' }), metadata: { name, namespace: ns, labels: { proxy: 'front' } } });
const userStatus = (name: string, ns = NS) => env.status<{ phase?: string; authProxies?: string[]; conditions?: { reason: string; message: string }[] }>('AuthProxyUser', name, ns);
const userPhase = async (name: string, ns = NS) => (await userStatus(name, ns)).phase;

describe.each(REAL_CRS)('AuthProxy with AuthProxyUsers (custom resources: %s)', { timeout: 90_000 }, (mode) => {
  beforeAll(async () => {
    env = await new Env({ mode }).start([NS, OPERATOR_NS, TEAM_B]);
    env.store.patch(BUILTIN.namespace, { namespace: '', name: TEAM_B }, { metadata: { labels: { tenant: 'yes' } } });
    env.operator();
  });
  afterAll(async () => env.stop());

  it('renders selected users from the proxy namespace and labelled namespaces', async () => {
    env.store.create(BUILTIN.secret, secret('alice-pw', { password: 'a1' }));
    env.store.create(BUILTIN.secret, { ...secret('bob-token', { token: 't-bob' }), metadata: { name: 'bob-token', namespace: TEAM_B } });
    await env.apply(cr('TSDBSingle', 'main', {}));
    await env.apply(cr('AuthProxy', 'front', { replicas: 2, userSelector: { matchLabels: { proxy: 'front' } }, userNamespaceSelector: { matchExpressions: [{ key: 'kubernetes.io/metadata.name', operator: 'In', values: [NS, TEAM_B] }] } }));
    await env.apply(user('alice', { username: 'alice', passwordRef: { name: 'alice-pw', key: 'password' }, targets: [{ ref: { kind: 'TSDBSingle', name: 'main' } }] }));
    await env.apply(user('bob', { bearerTokenRef: { name: 'bob-token', key: 'token' }, targets: [{ url: 'http://example.internal:8428' }] }, TEAM_B));
    await env.apply({ ...user('nolabel', { username: 'nolabel', defaultURL: ['http://x'] }), metadata: { name: 'nolabel', namespace: NS } });
    await env.waitFor('two users rendered', () => usernames().join(',') === 'alice,token:t-bob');
    expect(config().users!.find((u) => u.username === 'alice')).toMatchObject({ password: 'a1', url_prefix: `http://tsdb-single-main.${NS}.svc:8428`, name: `${NS}/alice` });
    await env.waitFor('statuses', async () => (await userPhase('alice')) === 'Accepted' && (await userPhase('bob', TEAM_B)) === 'Accepted' && (await userPhase('nolabel')) === 'Unselected');
    expect((await userStatus('alice')).authProxies).toEqual([`${NS}/front`]);
    await env.waitFor('proxy Ready with 2 users', async () => (await env.ready('AuthProxy', 'front')) && (await env.status<{ users?: number }>('AuthProxy', 'front')).users === 2);
  });

  it('applies user changes to the config without restarting the proxy Pods', async () => {
    const dep = () => env.store.get(BUILTIN.deployment, { namespace: NS, name: 'authproxy-front' })!;
    const generation = dep().metadata.generation;
    await env.apply(user('alice', { username: 'alice', passwordRef: { name: 'alice-pw', key: 'password' }, targets: [{ ref: { kind: 'TSDBSingle', name: 'main' }, paths: ['/api/v1/query'] }], maxConcurrentRequests: 5 }));
    await env.waitFor('url_map rendered', () => (config().users ?? []).some((u) => u.username === 'alice' && u.url_map !== undefined));
    const s = env.store.get(BUILTIN.secret, { namespace: NS, name: 'alice-pw' })!;
    env.store.replace(BUILTIN.secret, { ...s, data: { password: Buffer.from('a2').toString('base64') } });
    await env.waitFor('password rotated', () => (config().users ?? []).some((u) => u.username === 'alice' && u.password === 'a2'));
    expect(dep().metadata.generation).toBe(generation);
  });

  it('leaves broken users out, reports why on their status, and keeps serving the others', async () => {
    await env.apply(user('ghost', { username: 'ghost', passwordRef: { name: 'missing', key: 'password' }, defaultURL: ['http://x'] }));
    await env.apply(user('dangling', { username: 'dangling', targets: [{ ref: { kind: 'TSDBCluster', name: 'nope' }, component: 'select' }] }));
    await env.apply(user('badregex', { username: 'badregex', targets: [{ url: 'http://x', paths: ['/api/(unclosed'] }] }));
    await env.apply(user('alice-twin', { username: 'alice', passwordRef: { name: 'alice-pw', key: 'password' }, defaultURL: ['http://x'] }));
    await env.apply(user('filtered', { username: 'filtered', defaultURL: ['http://x'], ipFilters: { allowList: ['10.0.0.0/8'] } }));
    const want: Record<string, string> = { ghost: 'SecretNotFound', dangling: 'TargetNotFound', badregex: 'InvalidPath', 'alice-twin': 'DuplicateCredentials', filtered: 'IPFiltersNeedEULA' };
    const reasons = async () => Object.fromEntries(await Promise.all(Object.keys(want).map(async (n) => [n, (await userStatus(n)).conditions?.[0]?.reason])));
    await env.waitFor('rejections reported', async () => JSON.stringify(await reasons()) === JSON.stringify(want));
    expect(usernames()).toEqual(['alice', 'token:t-bob']);
    await env.waitFor('proxy counts the rejected users', async () => (await env.status<{ rejectedUsers?: number }>('AuthProxy', 'front')).rejectedUsers === 5);
    const events = env.store.list(BUILTIN.event, { namespace: NS }).items.filter((e) => (e['involvedObject'] as { name: string }).name === 'ghost');
    expect(events.map((e) => e['reason'])).toContain('SecretNotFound');
    // Fixing a user brings it in.
    env.store.create(BUILTIN.secret, secret('missing', { password: 'g' }));
    await env.waitFor('ghost accepted', async () => (await userPhase('ghost')) === 'Accepted' && usernames().includes('ghost'));
  });

  it('drops deleted users and stops selecting relabelled ones', async () => {
    await env.deleteCr('AuthProxyUser', 'bob', TEAM_B);
    await env.apply({ ...user('ghost', { username: 'ghost', passwordRef: { name: 'missing', key: 'password' }, defaultURL: ['http://x'] }), metadata: { name: 'ghost', namespace: NS, labels: { proxy: 'other' } } });
    await env.waitFor('users removed', () => usernames().join(',') === 'alice');
    await env.waitFor('ghost unselected', async () => (await userPhase('ghost')) === 'Unselected');
  });
});
