import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isConflict } from '../../operator/k8s/errors.ts';
import { loadKubeConfig, RestKubeClient } from '../../operator/k8s/rest-client.ts';
import { BUILTIN, CUSTOM } from '../../operator/k8s/resources.ts';
import type { WatchEvent } from '../../operator/k8s/client.ts';
import type { KubeObject } from '../../operator/k8s/types.ts';
import { FakeApiServer } from './server.ts';

let server: FakeApiServer;
let client: RestKubeClient;

beforeAll(async () => {
  server = new FakeApiServer({ operatorToken: 'op', rbac: [{ apiGroups: ['', 'apps', 'policy', 'strata.dev'], resources: ['*'], verbs: ['*'] }], simulation: { readyDelayMs: 2 } });
  await server.start();
  const dir = mkdtempSync(join(tmpdir(), 'fake-kube-'));
  writeFileSync(join(dir, 'config'), server.kubeconfig('op'));
  client = new RestKubeClient(loadKubeConfig(join(dir, 'config')));
});
afterAll(async () => {
  await client.close();
  await server.stop();
});

const cm = (name: string, data: Record<string, string>): KubeObject => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: 'ns' }, data });
const until = async (cond: () => boolean, ms = 3000) => {
  const end = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > end) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 5));
  }
};

describe('FakeApiServer with the REST client', () => {
  it('creates, reads, lists, replaces with optimistic concurrency and deletes', async () => {
    const created = await client.create(cm('a', { x: '1' }));
    expect(await client.get(BUILTIN.configMap, { namespace: 'ns', name: 'a' })).toMatchObject({ data: { x: '1' } });
    const listed = await client.list(BUILTIN.configMap, { namespace: 'ns' });
    expect(listed.items.map((o) => `${o.kind} ${o.metadata.name}`)).toEqual(['ConfigMap a']);
    await client.replace({ ...created, data: { x: '2' } });
    await expect(client.replace({ ...created, data: { x: '3' } })).rejects.toSatisfy(isConflict);
    expect(await client.delete(BUILTIN.configMap, { namespace: 'ns', name: 'a' })).toBe(true);
    expect(await client.delete(BUILTIN.configMap, { namespace: 'ns', name: 'a' })).toBe(false);
    expect(await client.get(BUILTIN.configMap, { namespace: 'ns', name: 'a' })).toBeUndefined();
  });

  it('server-side applies custom resources with defaults, and status through the subresource', async () => {
    const cr: KubeObject = { apiVersion: 'strata.dev/v1beta1', kind: 'TSDBSingle', metadata: { name: 's', namespace: 'ns' }, spec: { unknownField: 1 } };
    const applied = await client.apply(cr, { fieldManager: 'op', force: true });
    expect(applied['spec']).toMatchObject({ retentionPeriod: '1', paused: false });
    expect(applied['spec']).not.toHaveProperty('unknownField');
    await client.applyStatus({ ...cr, status: { phase: 'Ready' } }, { fieldManager: 'op', force: true });
    expect((await client.get(CUSTOM.TSDBSingle!, { namespace: 'ns', name: 's' }))!['status']).toEqual({ phase: 'Ready' });
  });

  it('rejects invalid custom resources with 422 naming the CEL rule message', async () => {
    const bad: KubeObject = { apiVersion: 'strata.dev/v1beta1', kind: 'TSDBGateway', metadata: { name: 'g', namespace: 'ns' }, spec: { target: { readURL: 'http://a', writeURL: 'http://b' } } };
    await expect(client.apply(bad, { fieldManager: 'op', force: true })).rejects.toThrow(/eula/);
  });

  it('streams watch events from a resourceVersion and reports 410 after compaction', async () => {
    const first = await client.create(cm('w1', {}));
    const events: WatchEvent[] = [];
    const ctl = new AbortController();
    const done = client.watch(BUILTIN.configMap, { namespace: 'ns', resourceVersion: first.metadata.resourceVersion!, signal: ctl.signal }, (e) => events.push(e));
    await client.create(cm('w2', {}));
    await until(() => events.some((e) => e.object.metadata.name === 'w2'));
    server.dropWatches();
    await done;
    server.store.compact();
    await expect(client.watch(BUILTIN.configMap, { namespace: 'ns', resourceVersion: first.metadata.resourceVersion!, signal: ctl.signal }, () => {})).rejects.toMatchObject({ status: 410 });
    ctl.abort();
  });

  it('evicts Pods unless a PodDisruptionBudget forbids it', async () => {
    const template = { metadata: { labels: { app: 'e' } }, spec: { containers: [{ name: 'c', image: 'img' }] } };
    await client.create({ apiVersion: 'apps/v1', kind: 'StatefulSet', metadata: { name: 'e', namespace: 'ns' }, spec: { replicas: 1, serviceName: 'e', selector: { matchLabels: { app: 'e' } }, template } });
    await client.create({ apiVersion: 'policy/v1', kind: 'PodDisruptionBudget', metadata: { name: 'e', namespace: 'ns' }, spec: { minAvailable: 1, selector: { matchLabels: { app: 'e' } } } });
    await until(() => ((server.store.get(BUILTIN.statefulSet, { namespace: 'ns', name: 'e' })?.['status'] as { readyReplicas?: number } | undefined)?.readyReplicas ?? 0) === 1);
    await expect(client.evict({ namespace: 'ns', name: 'e-0' })).rejects.toMatchObject({ status: 429 });
  });

  it('injects faults and denies what RBAC does not allow', async () => {
    server.failNext({ method: 'PATCH', status: 409, reason: 'Conflict' });
    await expect(client.apply(cm('f', {}), { fieldManager: 'op', force: true })).rejects.toSatisfy(isConflict);
    await client.apply(cm('f', {}), { fieldManager: 'op', force: true });
    await expect(client.list(BUILTIN.lease, { namespace: 'ns' })).rejects.toMatchObject({ status: 403 });
    expect(server.audit.has('patch /configmaps')).toBe(true);
  });
});
