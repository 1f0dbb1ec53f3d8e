// TSDBCluster → per role (storage, select, insert): ServiceAccount, Service, workload, and
// optional PodDisruptionBudget and HPA. Builders per role, so the controller can roll them out
// in order (storage → select → insert).
import type { TSDBCluster } from '../../api/resources.ts';
import type { StatelessSection } from '../../api/tsdb-cluster.ts';
import { commonLabels, selectorLabels } from '../../labels.ts';
import type { KubeObject } from '../../k8s/types.ts';
import { serviceHost, workloadName } from '../../names.ts';
import { command, DATA_PATH, DATA_VOLUME, PORTS } from '../common/binaries.ts';
import { horizontalPodAutoscaler, podDisruptionBudget, service, serviceAccount } from '../common/objects.ts';
import { BACKUP_CONTAINER } from '../common/backup.ts';
import { baseImage, renderArgs } from '../common/options.ts';
import { queryWorkersFlag } from '../common/query-workers.ts';
import type { BuildOptions } from '../common/options.ts';
import { mainContainer, podTemplate } from '../common/pod.ts';
import { storageStatefulSet } from '../common/statefulset.ts';

/** ClusterRole is one role of the cluster, in rollout order. */
export type ClusterRole = 'storage' | 'select' | 'insert';
/** ROLLOUT_ORDER is the order in which roles take a new template. */
export const ROLLOUT_ORDER: readonly ClusterRole[] = ['storage', 'select', 'insert'];

const component = { storage: 'tsdb-storage', select: 'tsdb-select', insert: 'tsdb-insert' } as const;

/** RoleObjects are the desired objects of one role; `workload` is its StatefulSet or Deployment. */
export interface RoleObjects {
  readonly role: ClusterRole;
  readonly workload: KubeObject;
  readonly others: KubeObject[];
}

function meta(cr: TSDBCluster, role: ClusterRole) {
  const c = component[role];
  return { name: workloadName(c, cr.metadata.name!), namespace: cr.metadata.namespace!, labels: commonLabels(c, cr.metadata.name!, cr.kind) };
}

/** storageNodes lists "<pod>.<service>.<ns>.svc:<port>" for every storage Pod. */
export function storageNodes(cr: TSDBCluster, port: number): string {
  const name = workloadName('tsdb-storage', cr.metadata.name!);
  const host = serviceHost(name, cr.metadata.namespace!);
  return Array.from({ length: cr.spec.storage.replicas }, (_, i) => `${name}-${i}.${host}:${port}`).join(',');
}

function buildStorage(cr: TSDBCluster, opts: BuildOptions): RoleObjects {
  const s = cr.spec.storage;
  const m = meta(cr, 'storage');
  const selector = selectorLabels('tsdb-storage', cr.metadata.name!);
  const spec = { ...s, image: s.image ?? cr.spec.image };
  const args = renderArgs({ httpListenAddr: `:${PORTS.storageHttp}`, storageDataPath: DATA_PATH, retentionPeriod: cr.spec.retentionPeriod }, s.extraArgs ?? {});
  const ports = [
    { name: 'http', containerPort: PORTS.storageHttp },
    { name: 'insert', containerPort: PORTS.storageInsert },
    { name: 'select', containerPort: PORTS.storageSelect },
  ];
  const workload = storageStatefulSet({
    meta: m,
    replicas: s.replicas,
    serviceName: m.name,
    selector,
    spec,
    main: { name: 'tsdb-storage', defaultImage: baseImage(opts, 'tsdb-storage', 'tsdb'), command: command('tsdb-storage'), args, ports, volumeMounts: [{ name: DATA_VOLUME, mountPath: DATA_PATH }] },
    storagePort: PORTS.storageHttp,
    backupImage: baseImage(opts, BACKUP_CONTAINER, 'backupmanager'),
    perPodBackupDestination: true,
    ...(cr.spec.imagePullSecrets === undefined ? {} : { imagePullSecrets: cr.spec.imagePullSecrets }),
  });
  const others: KubeObject[] = [
    serviceAccount(m),
    service(m, { selector, headless: true, ports: ports.map((p) => ({ name: p.name, port: p.containerPort })) }),
  ] as KubeObject[];
  if (s.podDisruptionBudget !== undefined) others.push(podDisruptionBudget(m, selector, s.podDisruptionBudget) as KubeObject);
  return { role: 'storage', workload: workload as KubeObject, others };
}

function buildStateless(cr: TSDBCluster, role: 'select' | 'insert', opts: BuildOptions): RoleObjects {
  const s: StatelessSection = cr.spec[role];
  const c = component[role];
  const m = meta(cr, role);
  const selector = selectorLabels(c, cr.metadata.name!);
  const port = role === 'select' ? PORTS.select : PORTS.insert;
  const rf = cr.spec.replicationFactor;
  const flags: Record<string, string | undefined> = {
    httpListenAddr: `:${port}`,
    storageNode: storageNodes(cr, role === 'select' ? PORTS.storageSelect : PORTS.storageInsert),
    replicationFactor: rf > 1 ? String(rf) : undefined,
    // With replication, select sees every sample rf times; deduplicate identical timestamps.
    'dedup.minScrapeInterval': role === 'select' && rf > 1 ? '1ms' : undefined,
    ...(role === 'select' ? queryWorkersFlag(s.resources) : {}),
  };
  const spec = { ...s, image: s.image ?? cr.spec.image };
  const container = mainContainer(spec, {
    name: c,
    defaultImage: baseImage(opts, c, 'tsdb'),
    command: command(c),
    args: renderArgs(flags, s.extraArgs ?? {}),
    ports: [{ name: 'http', containerPort: port }],
    volumeMounts: [],
  });
  const template = podTemplate(spec, {
    labels: m.labels,
    serviceAccountName: m.name,
    containers: [container],
    volumes: [],
    ...(cr.spec.imagePullSecrets === undefined ? {} : { imagePullSecrets: cr.spec.imagePullSecrets }),
  });
  const deploymentSpec: Record<string, unknown> = {
    selector: { matchLabels: selector },
    strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: '25%', maxUnavailable: 0 } },
    template,
  };
  // With an HPA the replica count belongs to the autoscaler: leaving it out of the applied
  // configuration stops the operator from fighting it.
  if (s.horizontalPodAutoscaler === undefined) deploymentSpec['replicas'] = s.replicas;
  const workload: KubeObject = { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: m.name, namespace: m.namespace, labels: { ...m.labels } }, spec: deploymentSpec };
  const others: KubeObject[] = [serviceAccount(m), service(m, { selector, type: s.service.type, ports: [{ name: 'http', port }], ...(s.service.annotations === undefined ? {} : { annotations: s.service.annotations }) })] as KubeObject[];
  if (s.podDisruptionBudget !== undefined) others.push(podDisruptionBudget(m, selector, s.podDisruptionBudget) as KubeObject);
  if (s.horizontalPodAutoscaler !== undefined) others.push(horizontalPodAutoscaler(m, m.name, s.horizontalPodAutoscaler) as KubeObject);
  return { role, workload, others };
}

/** buildTSDBCluster returns the desired objects of each role, in rollout order. Pure. */
export function buildTSDBCluster(cr: TSDBCluster, opts: BuildOptions): RoleObjects[] {
  return [buildStorage(cr, opts), buildStateless(cr, 'select', opts), buildStateless(cr, 'insert', opts)];
}

/** clusterURLs are the in-cluster base URLs of the select and insert Services. */
export function clusterURLs(name: string, namespace: string): { select: string; insert: string } {
  return {
    select: `http://${serviceHost(workloadName('tsdb-select', name), namespace)}:${PORTS.select}`,
    insert: `http://${serviceHost(workloadName('tsdb-insert', name), namespace)}:${PORTS.insert}`,
  };
}
