// TSDBCluster: storage (StatefulSet), select and insert (Deployments) roles of the cluster TSDB.
import { backup } from './backup.ts';
import { horizontalPodAutoscaler, image, imagePullSecrets, paused, persistentStorage, podDisruptionBudget, serviceSpec, workload } from './common.ts';
import { describe, int, obj } from './schema.ts';
import type { Static } from './schema.ts';
import { baseStatus, componentStatus } from './status.ts';
import { retentionPeriod } from './tsdb-single.ts';

const replicas = (what: string, dflt: number) => int({ description: `Number of ${what} Pods.`, minimum: 0, default: dflt });

export const storageSection = obj(
  {
    replicas: replicas('storage', 2),
    ...workload,
    storage: persistentStorage,
    podDisruptionBudget,
    backup,
  },
  {
    description: 'Storage nodes (tsdb-storage): a StatefulSet, rolled one Pod at a time.',
    defaultEmpty: true,
    rules: [{ rule: 'has(self.storage) == has(oldSelf.storage)', message: 'storage cannot be added or removed after creation' }],
  },
);

const statelessSection = (what: string, binary: string) =>
  obj(
    {
      replicas: replicas(what, 2),
      ...workload,
      service: serviceSpec,
      podDisruptionBudget,
      horizontalPodAutoscaler,
    },
    { description: `${what[0]!.toUpperCase()}${what.slice(1)} nodes (${binary}): a Deployment.`, defaultEmpty: true },
  );

export const tsdbClusterSpec = obj(
  {
    paused,
    image: describe(image, { description: 'Default image of all roles (one image holds the four TSDB binaries); each role may override it.' }),
    imagePullSecrets,
    retentionPeriod,
    replicationFactor: int({ description: 'Copies of each sample kept across storage nodes (-replicationFactor of insert and select).', minimum: 1, default: 1 }),
    storage: storageSection,
    select: statelessSection('select', 'tsdb-select'),
    insert: statelessSection('insert', 'tsdb-insert'),
  },
  {
    description: 'Desired state of a cluster TSDB.',
    defaultEmpty: true,
    // The API server also checks this rule against the bare default ({}), where the defaulted
    // fields are still absent; on stored objects defaulting always fills them in.
    rules: [
      {
        rule: '!has(self.replicationFactor) || !has(self.storage) || !has(self.storage.replicas) || self.replicationFactor <= self.storage.replicas',
        message: 'replicationFactor cannot exceed storage.replicas',
      },
    ],
  },
);

export const tsdbClusterStatus = obj(
  { ...baseStatus, storage: componentStatus, select: componentStatus, insert: componentStatus },
  { description: 'Observed state of a cluster TSDB.' },
);

export type TSDBClusterSpec = Static<typeof tsdbClusterSpec>;
export type TSDBClusterStatus = Static<typeof tsdbClusterStatus>;
export type StorageSection = Static<typeof storageSection>;
export type StatelessSection = TSDBClusterSpec['select'];
