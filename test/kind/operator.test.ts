import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isNotFound } from '../../operator/k8s/errors.ts';
import { loadKubeConfig, RestKubeClient } from '../../operator/k8s/rest-client.ts';
import { BUILTIN, CUSTOM } from '../../operator/k8s/resources.ts';
import type { KubeObject } from '../../operator/k8s/types.ts';
import { buildAndLoadImages, detectCluster, installChart, kubectl, REGISTRY, ROOT, TAG, uninstallChart } from './cluster.ts';

// The fake-API-server scenarios (test/operator) replayed on a real cluster, with the operator
// installed by the Helm chart and real Strata images. 409s, dropped watches and 410s cannot be
// provoked on demand on a real API server; the fake covers them.
const cluster = detectCluster();
if (!cluster.ok) console.warn(`test:kind skipped: ${cluster.reason}`);
const NS = `strata-kind-${randomUUID().slice(0, 6)}`;
let client: RestKubeClient;

const cr = (kind: string, name: string, spec: unknown, labels?: Record<string, string>): KubeObject => ({ apiVersion: 'strata.dev/v1beta1', kind, metadata: { name, namespace: NS, ...(labels === undefined ? {} : { labels }) }, spec });
const apply = (obj: KubeObject) => client.apply(obj, { fieldManager: 'strata-kind-test', force: true });
const get = (kind: string, name: string) => client.get(CUSTOM[kind]!, { namespace: NS, name });
async function waitFor(what: string, cond: () => Promise<boolean>, timeoutMs = 300_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!(await cond())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}\n${kubectl(['-n', 'strata-system', 'logs', 'deploy/strata-operator', '--tail=50'])}`);
    await new Promise((r) => setTimeout(r, 1000));
  }
}
async function ready(kind: string, name: string): Promise<boolean> {
  const o = await get(kind, name);
  const st = (o?.['status'] ?? {}) as { phase?: string; observedGeneration?: number };
  return st.phase === 'Ready' && st.observedGeneration === o?.metadata.generation;
}
const image = (o: KubeObject | undefined) => (o?.['spec'] as { template?: { spec?: { containers?: { image?: string }[] } } } | undefined)?.template?.spec?.containers?.[0]?.image;

describe.skipIf(!cluster.ok)('operator on a real cluster (kind)', () => {
  beforeAll(() => {
    buildAndLoadImages();
    kubectl(['apply', '--server-side', '-f', `${ROOT}/crds/`]);
    installChart();
    kubectl(['create', 'namespace', NS]);
    client = new RestKubeClient(loadKubeConfig(process.env['KUBECONFIG']));
  });
  afterAll(async () => {
    if (!cluster.ok) return;
    kubectl(['delete', 'namespace', NS, '--wait=false']);
    await client?.close();
    if (process.env['STRATA_KIND_KEEP'] !== '1') uninstallChart();
  });

  it('converges a TSDBSingle with a backup sidecar and a restore init container', async () => {
    await apply(cr('TSDBSingle', 'one', { backup: { destination: 'fs:///tmp/strata-backups', restore: { onStart: true } } }));
    await waitFor('TSDBSingle Ready', () => ready('TSDBSingle', 'one'));
    const pod = await client.get(BUILTIN.pod, { namespace: NS, name: 'tsdb-single-one-0' });
    expect(((pod!['spec'] as { containers: { name: string }[] }).containers).map((c) => c.name)).toEqual(['tsdb', 'backup']);
    expect(((pod!['spec'] as { initContainers: { name: string }[] }).initContainers).map((c) => c.name)).toEqual(['restore']);
  });

  it('converges a TSDBCluster and rolls an image change storage → select → insert', async () => {
    const spec = (tag: string) => ({ image: { repository: `${REGISTRY}/tsdb`, tag }, storage: { replicas: 2, podDisruptionBudget: { maxUnavailable: 1 } }, select: { replicas: 1 }, insert: { replicas: 1 } });
    await apply(cr('TSDBCluster', 'c', spec(TAG)));
    await waitFor('TSDBCluster Ready', () => ready('TSDBCluster', 'c'));
    const order: string[] = [];
    const ctl = new AbortController();
    const list = await client.list(BUILTIN.pod, { namespace: NS });
    void client.watch(BUILTIN.pod, { namespace: NS, resourceVersion: list.resourceVersion, signal: ctl.signal }, (e) => {
      if (e.type === 'DELETED') order.push(e.object.metadata.name!.replace(/-[a-z0-9]{8,10}-[a-z0-9]{5}$/, ''));
    });
    await apply(cr('TSDBCluster', 'c', spec(`${TAG}-b`)));
    await waitFor('rollout done', async () => image(await client.get(BUILTIN.deployment, { namespace: NS, name: 'tsdb-insert-c' })) === `${REGISTRY}/tsdb:${TAG}-b` && (await ready('TSDBCluster', 'c')));
    ctl.abort();
    expect(order.slice(0, 2)).toEqual(['tsdb-storage-c-1', 'tsdb-storage-c-0']);
    expect(order.indexOf('tsdb-select-c')).toBeLessThan(order.indexOf('tsdb-insert-c'));
  });

  it('renders AuthProxyUsers and reports a broken one on its status', async () => {
    await client.create({ apiVersion: 'v1', kind: 'Secret', metadata: { name: 'pw', namespace: NS }, data: { password: Buffer.from('p').toString('base64') } });
    await apply(cr('AuthProxy', 'front', { userSelector: {} }));
    await apply(cr('AuthProxyUser', 'good', { username: 'good', passwordRef: { name: 'pw', key: 'password' }, targets: [{ ref: { kind: 'TSDBSingle', name: 'one' } }] }));
    await apply(cr('AuthProxyUser', 'bad', { username: 'bad', passwordRef: { name: 'missing', key: 'password' }, defaultURL: ['http://x'] }));
    const phase = async (n: string) => ((await get('AuthProxyUser', n))?.['status'] as { phase?: string } | undefined)?.phase;
    await waitFor('user verdicts', async () => (await phase('good')) === 'Accepted' && (await phase('bad')) === 'Rejected');
    await waitFor('AuthProxy Ready', () => ready('AuthProxy', 'front'));
  });

  it('stops writing while paused', async () => {
    await apply(cr('TSDBCluster', 'c', { paused: true, image: { repository: `${REGISTRY}/tsdb`, tag: `${TAG}-b` }, storage: { replicas: 2, podDisruptionBudget: { maxUnavailable: 1 } }, select: { replicas: 1 }, insert: { replicas: 2 } }));
    await waitFor('Paused', async () => ((await get('TSDBCluster', 'c'))?.['status'] as { phase?: string }).phase === 'Paused');
    await new Promise((r) => setTimeout(r, 5000));
    expect(((await client.get(BUILTIN.deployment, { namespace: NS, name: 'tsdb-insert-c' }))!['spec'] as { replicas: number }).replicas).toBe(1);
  });

  it('keeps Pod templates when the operator restarts, and runs one leader of two replicas', async () => {
    const generations = async () => Object.fromEntries((await client.list(BUILTIN.statefulSet, { namespace: NS })).items.map((s) => [s.metadata.name, s.metadata.generation]));
    const before = await generations();
    installChart(['--set', 'replicaCount=2']);
    kubectl(['-n', 'strata-system', 'rollout', 'restart', 'deployment/strata-operator']);
    kubectl(['-n', 'strata-system', 'rollout', 'status', 'deployment/strata-operator', '--timeout=5m']);
    await new Promise((r) => setTimeout(r, 15_000));
    expect(await generations()).toEqual(before);
    const lease = await client.get(BUILTIN.lease, { namespace: 'strata-system', name: 'strata-operator' });
    const holder = (lease!['spec'] as { holderIdentity: string }).holderIdentity;
    const logs = kubectl(['-n', 'strata-system', 'logs', '-l', 'app.kubernetes.io/name=strata-operator', '--tail=-1', '--prefix']);
    const leaders = new Set([...logs.matchAll(/^\[pod\/([^/\]]+)\/.*became the leader/gm)].map((m) => m[1]));
    expect(leaders.size).toBe(1);
    expect(holder.startsWith([...leaders][0]!)).toBe(true);
  });

  it('deletes the children with the resource', async () => {
    await client.delete(CUSTOM.TSDBCluster!, { namespace: NS, name: 'c' });
    await waitFor('children gone', async () => {
      try {
        return (await client.get(BUILTIN.statefulSet, { namespace: NS, name: 'tsdb-storage-c' })) === undefined;
      } catch (err) {
        return isNotFound(err);
      }
    });
  });
});
