import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isPodReady } from '../../operator/k8s/fake/index.ts';
import { BUILTIN } from '../../operator/k8s/resources.ts';
import type { KubeObject } from '../../operator/k8s/types.ts';
import { cr, Env, NS, podImage, REAL_CRS, secret } from './harness.ts';

let env: Env;
const get = (type: keyof typeof BUILTIN, name: string) => env.store.get(BUILTIN[type], { namespace: NS, name });

describe.each(REAL_CRS)('operator lifecycle (custom resources: %s)', { timeout: 90_000 }, (mode) => {
  beforeAll(async () => {
    env = await new Env({ mode }).start();
    env.operator();
  });
  afterAll(async () => {
    if (process.env['SHOW_OPERATOR_LOGS'] === '1') console.log(env.logs());
    await env.stop();
  });

  it('converges a TSDBSingle: children exist, status Ready with counts and observedGeneration', async () => {
    await env.apply(cr('TSDBSingle', 'one', { retentionPeriod: '30d' }));
    await env.waitFor('TSDBSingle Ready', () => env.ready('TSDBSingle', 'one'));
    const sts = get('statefulSet', 'tsdb-single-one')!;
    expect(sts.metadata.ownerReferences?.[0]).toMatchObject({ kind: 'TSDBSingle', name: 'one', controller: true, uid: (await env.cr('TSDBSingle', 'one'))!.metadata.uid });
    expect(get('service', 'tsdb-single-one')).toBeDefined();
    expect(get('serviceAccount', 'tsdb-single-one')).toBeDefined();
    const st = await env.status<{ tsdb: { ready: string }; conditions: { type: string; status: string; reason: string }[] }>('TSDBSingle', 'one');
    expect(st.tsdb.ready).toBe('1/1');
    expect(st.conditions.map((c) => `${c.type}=${c.status}`)).toEqual(['Ready=True', 'Progressing=False', 'Degraded=False']);
  });

  it('converges a TSDBCluster and rolls a new image storage → select → insert, one storage Pod at a time', async () => {
    await env.apply(cr('TSDBCluster', 'c', { replicationFactor: 2, storage: { replicas: 3, podDisruptionBudget: { maxUnavailable: 1 } }, select: { replicas: 2 }, insert: { replicas: 2 } }));
    await env.waitFor('TSDBCluster Ready', () => env.ready('TSDBCluster', 'c'));
    expect((await env.status<{ storage: { ready: string } }>('TSDBCluster', 'c')).storage.ready).toBe('3/3');
    const insertArgs = (podSpecArgs(get('deployment', 'tsdb-insert-c')) ?? []).join(' ');
    expect(insertArgs).toContain(`-storageNode=tsdb-storage-c-0.tsdb-storage-c.${NS}.svc:8400,tsdb-storage-c-1.tsdb-storage-c.${NS}.svc:8400,tsdb-storage-c-2`);
    expect(insertArgs).toContain('-replicationFactor=2');

    const steps: string[] = [];
    let readyStoragePodsAtEviction: number[] = [];
    const unsubscribe = env.store.onChange(({ event }) => {
      const o = event.object;
      if ((o.kind === 'StatefulSet' || o.kind === 'Deployment') && podImage(o) === 'strata/tsdb:2.0.0' && !steps.includes(o.metadata.name!)) steps.push(o.metadata.name!);
      if (o.kind === 'Pod' && event.type === 'DELETED' && o.metadata.name!.startsWith('tsdb-storage-c-')) {
        steps.push(`replace ${o.metadata.name}`);
        readyStoragePodsAtEviction.push(env.store.list(BUILTIN.pod, { namespace: NS, labelSelector: 'app.kubernetes.io/name=tsdb-storage,app.kubernetes.io/instance=c' }).items.filter(isPodReady).length);
      }
    });
    await env.apply(cr('TSDBCluster', 'c', { image: { tag: '2.0.0' }, replicationFactor: 2, storage: { replicas: 3, podDisruptionBudget: { maxUnavailable: 1 } }, select: { replicas: 2 }, insert: { replicas: 2 } }));
    await env.waitFor('rolled out cluster', async () => podImage(get('deployment', 'tsdb-insert-c')) === 'strata/tsdb:2.0.0' && (await env.ready('TSDBCluster', 'c')), 30_000);
    unsubscribe();
    expect(steps).toEqual(['tsdb-storage-c', 'replace tsdb-storage-c-2', 'replace tsdb-storage-c-1', 'replace tsdb-storage-c-0', 'tsdb-select-c', 'tsdb-insert-c']);
    // Each storage Pod was replaced while the other two were running.
    expect(readyStoragePodsAtEviction).toEqual([2, 2, 2]);
    readyStoragePodsAtEviction = [];
  });

  it('honours PodDisruptionBudgets: a rollout the budget forbids waits, then continues when allowed', async () => {
    const spec = (tag: string, pdb: object) => ({ image: { tag }, storage: { replicas: 2, podDisruptionBudget: pdb }, select: { replicas: 1 }, insert: { replicas: 1 } });
    await env.apply(cr('TSDBCluster', 'b', spec('1.0.0', { minAvailable: 2 })));
    await env.waitFor('cluster b Ready', () => env.ready('TSDBCluster', 'b'));
    await env.apply(cr('TSDBCluster', 'b', spec('2.0.0', { minAvailable: 2 })));
    const progressing = async () => (await env.status<{ conditions?: { type: string; reason: string }[] }>('TSDBCluster', 'b')).conditions?.find((c) => c.type === 'Progressing');
    await env.waitFor('rollout blocked by the budget', async () => (await progressing())?.reason === 'RolloutBlocked');
    const pods = () => env.store.list(BUILTIN.pod, { namespace: NS, labelSelector: 'app.kubernetes.io/name=tsdb-storage,app.kubernetes.io/instance=b' }).items;
    expect(pods().map((p) => p.metadata.labels?.['controller-revision-hash']).every((h) => h === pods()[0]!.metadata.labels?.['controller-revision-hash'])).toBe(true);
    const blocked = env.store.list(BUILTIN.event, { namespace: NS }).items.filter((e) => e['reason'] === 'RolloutBlocked');
    expect(blocked.length).toBeGreaterThan(0);
    await env.apply(cr('TSDBCluster', 'b', spec('2.0.0', { maxUnavailable: 1 })));
    await env.waitFor('rollout completed once allowed', async () => podImage(get('deployment', 'tsdb-insert-b')) === 'strata/tsdb:2.0.0' && (await env.ready('TSDBCluster', 'b')), 30_000);
  });

  it('runs a TSDBGateway against the cluster and rolls its Pods only when a key changes', async () => {
    env.store.create(BUILTIN.secret, secret('jwt', { 'key.pem': 'KEY-1' }));
    const spec = { eula: true, target: { ref: { kind: 'TSDBCluster', name: 'c' } }, auth: { publicKeys: [{ secretKeyRef: { name: 'jwt', key: 'key.pem' } }] } };
    await env.apply(cr('TSDBGateway', 'gw', spec));
    await env.waitFor('gateway Ready', () => env.ready('TSDBGateway', 'gw'));
    const dep = () => get('deployment', 'tsdb-gateway-gw')!;
    const args = podSpecArgs(dep())!.join(' ');
    expect(args).toContain(`-read.url=http://tsdb-select-c.${NS}.svc:8481`);
    expect(args).toContain(`-write.url=http://tsdb-insert-c.${NS}.svc:8480`);
    expect(args).toContain('-clusterMode=true');
    const hash = () => (dep()['spec'] as { template: { metadata: { annotations?: Record<string, string> } } }).template.metadata.annotations?.['strata.dev/config-hash'];
    const before = hash();
    const generation = dep().metadata.generation;
    // An unrelated Secret change does not touch the gateway.
    env.store.create(BUILTIN.secret, secret('unrelated', { x: '1' }));
    await new Promise((r) => setTimeout(r, 300));
    expect(dep().metadata.generation).toBe(generation);
    const s = env.store.get(BUILTIN.secret, { namespace: NS, name: 'jwt' })!;
    env.store.replace(BUILTIN.secret, { ...s, data: { 'key.pem': Buffer.from('KEY-2').toString('base64') } });
    await env.waitFor('config hash changed', () => hash() !== before);
    await env.waitFor('gateway Ready after key rotation', () => env.ready('TSDBGateway', 'gw'));
  });

  it('stops writing while paused and resumes afterwards', async () => {
    const spec = { storage: { replicas: 1 }, select: { replicas: 1 }, insert: { replicas: 1 } };
    await env.apply(cr('TSDBCluster', 'p', spec));
    await env.waitFor('cluster p Ready', () => env.ready('TSDBCluster', 'p'));
    await env.apply(cr('TSDBCluster', 'p', { ...spec, paused: true, insert: { replicas: 3 } }));
    await env.waitFor('Paused phase', async () => (await env.phase('TSDBCluster', 'p')) === 'Paused');
    await new Promise((r) => setTimeout(r, 300));
    expect((get('deployment', 'tsdb-insert-p')!['spec'] as { replicas: number }).replicas).toBe(1);
    await env.apply(cr('TSDBCluster', 'p', { ...spec, insert: { replicas: 3 } }));
    await env.waitFor('scaled after unpausing', async () => (get('deployment', 'tsdb-insert-p')!['spec'] as { replicas: number }).replicas === 3 && (await env.ready('TSDBCluster', 'p')));
  });

  it('deletes the children when the resource is deleted (owner-reference GC), not before its finalizers are done', async () => {
    const children = () => ['statefulSet', 'deployment', 'service'].flatMap((t) => env.store.list(BUILTIN[t as 'service'], { namespace: NS, labelSelector: 'app.kubernetes.io/instance=p' }).items);
    // Another controller's finalizer holds the resource: it is only marked deleted, and its children stay.
    await env.patchCr('TSDBCluster', 'p', { metadata: { finalizers: ['example.com/hold'] } });
    await env.deleteCr('TSDBCluster', 'p');
    await env.waitFor('deletion pending', async () => (await env.cr('TSDBCluster', 'p'))?.metadata.deletionTimestamp !== undefined);
    await new Promise((r) => setTimeout(r, 300));
    expect(children().length).toBeGreaterThanOrEqual(4);
    await env.patchCr('TSDBCluster', 'p', { metadata: { finalizers: null } });
    await env.waitFor('resource gone', async () => (await env.cr('TSDBCluster', 'p')) === undefined);
    await env.waitFor('children gone', () => children().length === 0);
    expect(env.store.list(BUILTIN.pod, { namespace: NS, labelSelector: 'app.kubernetes.io/instance=p' }).items).toEqual([]);
  });
});

function podSpecArgs(obj: KubeObject | undefined): string[] | undefined {
  return (obj?.['spec'] as { template: { spec: { containers: { args?: string[] }[] } } } | undefined)?.template.spec.containers[0]?.args;
}
