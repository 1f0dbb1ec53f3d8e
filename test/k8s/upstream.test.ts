// The fake API server with an upstream: strata.dev and apiextensions.k8s.io are served by the
// run's real Kubernetes API server (test/realk8s) behind the fake's one endpoint.
import { randomBytes } from 'node:crypto';
import { KubeConfig } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { WatchEvent } from '../../operator/k8s/client.ts';
import { RestKubeClient } from '../../operator/k8s/rest-client.ts';
import { BUILTIN, CUSTOM } from '../../operator/k8s/resources.ts';
import type { KubeObject } from '../../operator/k8s/types.ts';
import { PERMISSIONS } from '../../operator/rbac.ts';
import { RawKubeClient } from '../realk8s/client.ts';
import { applyCrd, crdsIn, realCrdServer, waitEstablished } from '../realk8s/crds.ts';
import { FakeApiServer } from './server.ts';

const suffix = randomBytes(3).toString('hex');
const NS = `fwd-${suffix}`;
/** HIDDEN is a namespace on the real server that this fake does not hold. */
const HIDDEN = `hidden-${suffix}`;
const single = (name: string, namespace = NS): KubeObject => ({ apiVersion: 'strata.dev/v1beta1', kind: 'TSDBSingle', metadata: { name, namespace }, spec: {} });

let server: FakeApiServer;
let operator: RestKubeClient;
let admin: RestKubeClient;
/** real talks to the real API server directly (its admin client certificate). */
let real: RestKubeClient;
/** realKc is the real API server's admin kubeconfig. */
let realKc: KubeConfig;

const client = (token: string) => {
  const kc = new KubeConfig();
  kc.loadFromString(server.kubeconfig(token));
  return new RestKubeClient(kc);
};
const until = async (what: string, cond: () => boolean | Promise<boolean>, ms = 10_000) => {
  const end = Date.now() + ms;
  while (!(await cond())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}; the fake's watches of the real server said:\n${server.upstreamLog()}`);
    await new Promise((r) => setTimeout(r, 20));
  }
};
const child = (name: string, owner: KubeObject): KubeObject => ({
  apiVersion: 'v1', kind: 'ConfigMap',
  metadata: { name, namespace: NS, ownerReferences: [{ apiVersion: owner.apiVersion, kind: owner.kind, name: owner.metadata.name!, uid: owner.metadata.uid!, controller: true }] },
});
const childExists = (name: string) => server.store.get(BUILTIN.configMap, { namespace: NS, name }) !== undefined;

beforeAll(async () => {
  const { kubeConfig } = await realCrdServer();
  realKc = kubeConfig;
  // The operator's rules, and patch (but not create) of the custom resources themselves.
  const rbac = [...PERMISSIONS, { apiGroups: ['strata.dev'], resources: ['tsdbsingles'], verbs: ['patch'] }];
  server = new FakeApiServer({ operatorToken: 'op', rbac, simulation: { readyDelayMs: 2 }, upstream: kubeConfig });
  await server.start();
  server.store.create(BUILTIN.namespace, { apiVersion: 'v1', kind: 'Namespace', metadata: { name: NS } });
  operator = client('op');
  admin = client('admin');
  real = new RestKubeClient(kubeConfig);
});
afterAll(async () => {
  await Promise.all([operator?.close(), admin?.close(), real?.close()]);
  await server?.stop();
});

describe('FakeApiServer forwarding custom resources to a real API server', () => {
  it('forwards CustomResourceDefinitions: applying crds/ through the fake applies them on the real server', async () => {
    const kc = new KubeConfig();
    kc.loadFromString(server.kubeconfig('admin'));
    const raw = new RawKubeClient(kc);
    for (const crd of crdsIn('crds')) {
      await applyCrd(raw, crd, 'strata-forward-test');
      await waitEstablished(raw, crd.metadata.name);
    }
    await raw.close();
    const direct = new RawKubeClient(realKc);
    const crd = await direct.request('GET', `/apis/apiextensions.k8s.io/v1/customresourcedefinitions/${crdsIn('crds')[0]!.metadata.name}`);
    await direct.close();
    expect(((crd.body['metadata'] as { managedFields: { manager: string }[] }).managedFields).map((m) => m.manager)).toContain('strata-forward-test');
  });

  it('serves the forwarded groups in discovery next to its own', async () => {
    const groups = (await (await fetch(`${server.url}/apis`)).json()) as { groups: { name: string }[] };
    expect(groups.groups.map((g) => g.name)).toEqual(expect.arrayContaining(['apps', 'coordination.k8s.io', 'strata.dev', 'apiextensions.k8s.io']));
    const resources = (await (await fetch(`${server.url}/apis/strata.dev/v1beta1`)).json()) as { resources: { name: string }[] };
    expect(resources.resources.map((r) => r.name)).toEqual(expect.arrayContaining(['tsdbsingles', 'tsdbsingles/status']));
  });

  it('stores custom resources on the real server, with its validation and server-side apply', async () => {
    const created = await admin.apply(single('a'), { fieldManager: 'test', force: true });
    const direct = await real.get(CUSTOM.TSDBSingle!, { namespace: NS, name: 'a' });
    expect(direct?.metadata.uid).toBe(created.metadata.uid);
    expect((direct?.metadata.managedFields as { manager: string }[] | undefined)?.map((m) => m.manager)).toContain('test');
    await expect(admin.apply({ ...single('bad'), spec: { retentionPeriod: '3x' } }, { fieldManager: 'test', force: true })).rejects.toMatchObject({ status: 422 });
  });

  it('applies the operator RBAC and the audit to forwarded requests', async () => {
    // Apply of a missing object is also a create, which the token may not do; of an existing one a patch.
    await expect(operator.apply(single('by-operator'), { fieldManager: 'op', force: true })).rejects.toMatchObject({ status: 403 });
    expect(await real.get(CUSTOM.TSDBSingle!, { namespace: NS, name: 'by-operator' })).toBeUndefined();
    await operator.apply({ ...single('a'), metadata: { name: 'a', namespace: NS, labels: { by: 'operator' } } }, { fieldManager: 'op', force: true });
    await expect(operator.list(CUSTOM.AuthProxy!, { namespace: NS })).resolves.toBeDefined();
    await expect(operator.get(CUSTOM.TSDBSingle!, { namespace: NS, name: 'a' })).rejects.toMatchObject({ status: 403 });
    await operator.applyStatus({ ...single('a'), status: { phase: 'Ready' } }, { fieldManager: 'op', force: true });
    expect((await real.get(CUSTOM.TSDBSingle!, { namespace: NS, name: 'a' }))?.['status']).toMatchObject({ phase: 'Ready' });
    expect(server.audit).toContain('patch strata.dev/tsdbsingles/status');
    expect(server.audit).toContain('create strata.dev/tsdbsingles');
    expect(server.scopes).toContain(`list authproxies ${NS}`);
    server.failNext({ method: 'PATCH', pathIncludes: '/tsdbsingles/', status: 409, reason: 'Conflict' });
    await expect(operator.applyStatus({ ...single('a'), status: { phase: 'Ready' } }, { fieldManager: 'op', force: true })).rejects.toMatchObject({ status: 409 });
  });

  it('filters lists and watches across namespaces to its own namespaces, and drops forwarded watches on demand', async () => {
    await real.apply(single('elsewhere', HIDDEN), { fieldManager: 'test', force: true });
    const listed = await operator.list(CUSTOM.TSDBSingle!, {});
    expect(listed.items.map((o) => o.metadata.namespace)).not.toContain(HIDDEN);
    expect(listed.items.map((o) => o.metadata.name)).toContain('a');
    const events: WatchEvent[] = [];
    const ctl = new AbortController();
    const done = operator.watch(CUSTOM.TSDBSingle!, { resourceVersion: listed.resourceVersion, signal: ctl.signal }, (e) => events.push(e));
    await real.apply(single('hidden-2', HIDDEN), { fieldManager: 'test', force: true });
    await admin.apply(single('w'), { fieldManager: 'test', force: true });
    await until('the watch event', () => events.some((e) => e.object.metadata.name === 'w'));
    expect(events.map((e) => e.object.metadata.namespace)).not.toContain(HIDDEN);
    server.dropWatches();
    await done;
    ctl.abort();
  });

  it('collects children in the fake when their custom resource is deleted on the real server', async () => {
    const owner = await admin.apply(single('owner'), { fieldManager: 'test', force: true });
    server.store.create(BUILTIN.configMap, child('owned', owner));
    // An owner reference to a uid the real server never had is collected once looked up.
    server.store.create(BUILTIN.configMap, child('stale', { ...owner, metadata: { ...owner.metadata, uid: '00000000-0000-0000-0000-000000000000' } }));
    await until('the stale child collected', () => !childExists('stale'));
    expect(childExists('owned')).toBe(true);
    await real.delete(CUSTOM.TSDBSingle!, { namespace: NS, name: 'owner' });
    await until('the child collected', () => !childExists('owned'));
  });

  it('keeps children while a finalizer holds their custom resource, and collects them once it is removed', async () => {
    const owner = await admin.apply({ ...single('held'), metadata: { name: 'held', namespace: NS, finalizers: ['strata.dev/test-hold'] } }, { fieldManager: 'test', force: true });
    server.store.create(BUILTIN.configMap, child('held-child', owner));
    await admin.delete(CUSTOM.TSDBSingle!, { namespace: NS, name: 'held' });
    await until('deletionTimestamp set', async () => (await admin.get(CUSTOM.TSDBSingle!, { namespace: NS, name: 'held' }))?.metadata.deletionTimestamp !== undefined);
    await new Promise((r) => setTimeout(r, 300));
    expect(childExists('held-child')).toBe(true);
    await admin.apply({ ...single('held'), metadata: { name: 'held', namespace: NS, finalizers: [] } }, { fieldManager: 'test', force: true });
    await until('the owner gone', async () => (await real.get(CUSTOM.TSDBSingle!, { namespace: NS, name: 'held' })) === undefined);
    await until('the child collected', () => !childExists('held-child'));
  });
});
