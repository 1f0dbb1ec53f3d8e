// Operator upgrades restart nothing: an operator with other default images (and other operational
// flags) takes over unchanged resources and changes no child object, Pod template or Pod. Only a
// new resource, a spec change or an explicit opt-in moves a workload to the new defaults.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readBuildInfo } from '../../src/lib/buildinfo/index.ts';
import { BUILTIN } from '../../operator/k8s/resources.ts';
import type { ResourceType } from '../../operator/k8s/resources.ts';
import type { KubeObject } from '../../operator/k8s/types.ts';
import { MANAGED_SELECTOR } from '../../operator/labels.ts';
import { cr, Env, NS, podImage, REAL_CRS, secret } from './harness.ts';
import type { OperatorProcess } from './harness.ts';

/** Operator "A": the previous release, whose default images were the 0.0.1 ones. */
const A = { tsdb: 'strata/tsdb:0.0.1', gateway: 'strata/gateway:0.0.1', authproxy: 'strata/authproxy:0.0.1', backupmanager: 'strata/backupmanager:0.0.1' };
const A_FLAGS = Object.entries(A).map(([k, v]) => `-image.${k}=${v}`);
/** Operator "B": this build with its own defaults (they follow the package version) and other tuning. */
const VERSION = readBuildInfo().version;
const B = { tsdb: `strata/tsdb:${VERSION}`, gateway: `strata/gateway:${VERSION}`, authproxy: `strata/authproxy:${VERSION}`, backupmanager: `strata/backupmanager:${VERSION}` };
const B_FLAGS = ['-workers=2', '-resyncPeriod=1s', '-rollout.pollInterval=30ms', '-rollout.progressDeadline=25s', '-backoff.base=30ms'];

const CHILD_TYPES: readonly ResourceType[] = [BUILTIN.statefulSet, BUILTIN.deployment, BUILTIN.service, BUILTIN.serviceAccount, BUILTIN.configMap, BUILTIN.secret, BUILTIN.podDisruptionBudget, BUILTIN.horizontalPodAutoscaler];
const backup = { destination: 's3://backups/strata', credentialsSecret: { name: 's3', key: 'creds' }, restore: { onStart: true } };

/** The resources that live through the upgrade, with what they run under operator A. */
const RESOURCES: { kind: string; name: string; spec: object; labels?: Record<string, string>; images: Record<string, string> }[] = [
  { kind: 'TSDBSingle', name: 'single', spec: { storage: { size: '1Gi' }, backup }, images: { tsdb: A.tsdb, backup: A.backupmanager } },
  // Only the repository is pinned: the tag still comes from the default, so it must stick too.
  { kind: 'TSDBSingle', name: 'mirror', spec: { image: { repository: 'mirror.local/strata/tsdb' } }, images: { tsdb: 'mirror.local/strata/tsdb:0.0.1' } },
  {
    kind: 'TSDBCluster',
    name: 'cluster',
    spec: { replicationFactor: 2, storage: { replicas: 2, backup, podDisruptionBudget: { maxUnavailable: 1 } }, select: { replicas: 1, horizontalPodAutoscaler: { minReplicas: 1, maxReplicas: 3, targetCPUUtilizationPercentage: 70 } }, insert: { replicas: 2 } },
    images: { 'tsdb-storage': A.tsdb, backup: A.backupmanager, 'tsdb-select': A.tsdb, 'tsdb-insert': A.tsdb },
  },
  {
    kind: 'TSDBGateway',
    name: 'gw',
    spec: { eula: true, target: { ref: { kind: 'TSDBCluster', name: 'cluster' } }, auth: { publicKeys: [{ secretKeyRef: { name: 'jwt', key: 'key.pem' } }] }, rateLimit: { enabled: true, datasourceURL: `http://tsdb-select-cluster.${NS}.svc:8481/select/0/prometheus`, limits: [{ type: 'queries', value: 10, resolution: 'minute' }] } },
    images: { gateway: A.gateway },
  },
  { kind: 'AuthProxy', name: 'front', spec: { replicas: 2, userSelector: { matchLabels: { proxy: 'front' } } }, images: { authproxy: A.authproxy } },
];
const counted = ['TSDBSingle', 'TSDBCluster', 'TSDBGateway', 'AuthProxy'] as const;

let env: Env;
let operatorB: OperatorProcess;

// Everything of a child but what the API server and its controllers own (versions, status).
function content(o: KubeObject): string {
  const { resourceVersion: _rv, managedFields: _mf, ...meta } = o.metadata;
  const { status: _status, ...rest } = o;
  return JSON.stringify({ ...rest, metadata: meta });
}
function snapshotChildren(): Map<string, string> {
  const out = new Map<string, string>();
  for (const t of CHILD_TYPES) for (const o of env.store.list(t, { namespace: NS, labelSelector: MANAGED_SELECTOR }).items) out.set(`${o.kind}/${o.metadata.name}`, content(o));
  return out;
}
const podUids = () => new Map(env.store.list(BUILTIN.pod, { namespace: NS }).items.map((p) => [p.metadata.name!, p.metadata.uid!]));
const resolvedImages = async (kind: string, name: string) => (await env.status<{ resolvedImages?: Record<string, string> }>(kind, name)).resolvedImages;
const workload = (type: 'statefulSet' | 'deployment', name: string) => env.store.get(BUILTIN[type], { namespace: NS, name });
const allReady = () => env.allReady(RESOURCES);

describe.each(REAL_CRS)('operator upgrade with unchanged resources (custom resources: %s)', { timeout: 120_000 }, (mode) => {
  let before: Map<string, string>;
  let podsBefore: Map<string, string>;
  beforeAll(async () => {
    env = await new Env({ mode }).start();
  });
  afterAll(async () => {
    if (process.env['SHOW_OPERATOR_LOGS'] === '1') console.log(env.logs());
    await env.stop();
  });

  it('operator A brings every resource up and records the images it chose', async () => {
    env.store.create(BUILTIN.secret, secret('s3', { creds: '[default]\naws_access_key_id=x\n' }));
    env.store.create(BUILTIN.secret, secret('jwt', { 'key.pem': '-----BEGIN PUBLIC KEY-----\nA\n-----END PUBLIC KEY-----\n' }));
    env.store.create(BUILTIN.secret, secret('alice-pw', { password: 'a1' }));
    await env.apply(cr('AuthProxyUser', 'alice', { username: 'alice', passwordRef: { name: 'alice-pw', key: 'password' }, targets: [{ ref: { kind: 'TSDBCluster', name: 'cluster' }, component: 'select', tenant: '1:0' }] }, { proxy: 'front' }));
    for (const r of RESOURCES) await env.apply(cr(r.kind, r.name, r.spec, r.labels));
    env.operatorProcess(A_FLAGS, false);
    await env.waitFor('all resources Ready under operator A', allReady, 60_000);
    for (const r of RESOURCES) expect(await resolvedImages(r.kind, r.name), `${r.kind}/${r.name}`).toEqual(r.images);
    expect(podImage(workload('statefulSet', 'tsdb-storage-cluster'), 1)).toBe(A.backupmanager);
    before = snapshotChildren();
    podsBefore = podUids();
    expect(podsBefore.size).toBe(1 + 1 + 2 + 1 + 2 + 1 + 2);
  });

  it('operator B (other defaults and flags) takes over and changes no child, Pod template or Pod', async () => {
    const changes: string[] = [];
    const unsubscribe = env.store.onChange(({ event }) => {
      const o = event.object;
      if (o.kind === 'Pod' && event.type === 'DELETED') changes.push(`deleted Pod ${o.metadata.name}`);
      if ((o.kind === 'StatefulSet' || o.kind === 'Deployment') && event.type !== 'DELETED' && before.get(`${o.kind}/${o.metadata.name}`) !== content(o)) changes.push(`changed ${o.kind} ${o.metadata.name}`);
    });
    await env.operators[0]!.stop();
    operatorB = env.operatorProcess(B_FLAGS, false);
    // Every resource reconciled at least twice by B: from the initial list and on resyncs.
    const reconciledTwice = async () => (await Promise.all(counted.map(async (kind) => (await operatorB.reconciles(kind)) >= 2 * RESOURCES.filter((r) => r.kind === kind).length))).every(Boolean);
    await env.waitFor('operator B reconciled every resource twice', reconciledTwice, 30_000);
    unsubscribe();
    expect(changes).toEqual([]);
    expect(snapshotChildren()).toEqual(before);
    expect(podUids()).toEqual(podsBefore);
    for (const r of RESOURCES) expect(await resolvedImages(r.kind, r.name), `${r.kind}/${r.name}`).toEqual(r.images);
    expect(await allReady()).toBe(true);
    expect(await operatorB.reconciles('TSDBCluster', 'error')).toBe(0);
    expect(env.store.list(BUILTIN.event, { namespace: NS }).items.filter((e) => e['reason'] === 'PodReplaced')).toEqual([]);
  });

  it('gives a resource created after the upgrade the new defaults', async () => {
    await env.apply(cr('TSDBSingle', 'fresh', { backup: { destination: 's3://backups/fresh' } }));
    await env.waitFor('fresh TSDBSingle Ready', () => env.ready('TSDBSingle', 'fresh'));
    expect(podImage(workload('statefulSet', 'tsdb-single-fresh'))).toBe(B.tsdb);
    expect(podImage(workload('statefulSet', 'tsdb-single-fresh'), 1)).toBe(B.backupmanager);
    expect(await resolvedImages('TSDBSingle', 'fresh')).toEqual({ tsdb: B.tsdb, backup: B.backupmanager });
    // The images are the only place the operator version reaches: no label, annotation or flag.
    const children = CHILD_TYPES.flatMap((t) => env.store.list(t, { namespace: NS, labelSelector: 'app.kubernetes.io/instance=fresh' }).items);
    expect(children.map((o) => o.kind).sort()).toEqual(['Service', 'ServiceAccount', 'StatefulSet']);
    for (const o of children) expect(content(o).replace(/"image":"[^"]*"/g, '"image":""'), `${o.kind}/${o.metadata.name}`).not.toMatch(new RegExp(`${VERSION.replaceAll('.', '\\.')}|(?<!api)version`, 'i'));
  });

  it('rolls a resource whose spec now pins an image tag, and only the pinned container', async () => {
    const pod = () => env.store.get(BUILTIN.pod, { namespace: NS, name: 'tsdb-single-single-0' });
    const uid = pod()!.metadata.uid;
    await env.apply(cr('TSDBSingle', 'single', { ...RESOURCES[0]!.spec, image: { tag: '0.0.2' } }));
    await env.waitFor('pinned tag rolled out', async () => podImage(workload('statefulSet', 'tsdb-single-single')) === 'strata/tsdb:0.0.2' && (await env.ready('TSDBSingle', 'single')) && pod()?.metadata.uid !== uid);
    expect(podImage(workload('statefulSet', 'tsdb-single-single'), 1)).toBe(A.backupmanager);
    expect(await resolvedImages('TSDBSingle', 'single')).toEqual({ tsdb: 'strata/tsdb:0.0.2', backup: A.backupmanager });
    // Removing the tag again keeps the version it runs now: no downgrade to an older default.
    const generation = workload('statefulSet', 'tsdb-single-single')!.metadata.generation;
    await env.apply(cr('TSDBSingle', 'single', RESOURCES[0]!.spec));
    await env.waitFor('spec without tag observed', () => env.ready('TSDBSingle', 'single'));
    expect(workload('statefulSet', 'tsdb-single-single')!.metadata.generation).toBe(generation);
    expect(podImage(workload('statefulSet', 'tsdb-single-single'))).toBe('strata/tsdb:0.0.2');
  });

  it('moves a container to the new default when its recorded image is removed (opt-in)', async () => {
    await env.patchCr('TSDBGateway', 'gw', { status: { resolvedImages: { gateway: null } } }, { subresource: 'status' });
    await env.waitFor('gateway on the new default', async () => podImage(workload('deployment', 'tsdb-gateway-gw')) === B.gateway && (await env.ready('TSDBGateway', 'gw')));
    expect(await resolvedImages('TSDBGateway', 'gw')).toEqual({ gateway: B.gateway });
    // The other resources still run what operator A gave them.
    expect(podImage(workload('deployment', 'authproxy-front'))).toBe(A.authproxy);
    expect(podImage(workload('deployment', 'tsdb-insert-cluster'))).toBe(A.tsdb);
  });
});
