// The StatefulSet of storage Pods (TSDBSingle and TSDBCluster storage): data volume, optional
// backup sidecar and restore init container, OnDelete updates (the operator rolls Pods itself).
import type { IStatefulSet } from 'kubernetes-models/apps/v1/StatefulSet';
import type { BackupSpec } from '../../api/backup.ts';
import type { PersistentStorage } from '../../api/common.ts';
import { backupSidecar, backupVolumes, restoreInitContainer } from './backup.ts';
import { DATA_PATH, DATA_VOLUME } from './binaries.ts';
import type { Meta } from './objects.ts';
import { mainContainer, podTemplate } from './pod.ts';
import type { MainContainerInput } from './pod.ts';
import type { WorkloadSpec } from './options.ts';
import { dataVolumeClaims, dataVolumes } from './storage.ts';

/** StorageStatefulSetInput describes one storage StatefulSet. */
export interface StorageStatefulSetInput {
  readonly meta: Meta;
  readonly replicas: number;
  readonly serviceName: string;
  readonly selector: Readonly<Record<string, string>>;
  readonly spec: WorkloadSpec & { readonly storage?: PersistentStorage; readonly backup?: BackupSpec };
  readonly main: MainContainerInput;
  readonly storagePort: number;
  readonly backupImage: string;
  readonly perPodBackupDestination: boolean;
  readonly imagePullSecrets?: readonly { readonly name: string }[];
}

/** storageStatefulSet builds the StatefulSet; deterministic for equal inputs. */
export function storageStatefulSet(input: StorageStatefulSetInput): IStatefulSet {
  const { spec } = input;
  const containers = [mainContainer(spec, input.main)];
  const initContainers = [];
  const volumes = [...dataVolumes(spec.storage)];
  if (spec.backup !== undefined) {
    const b = { defaultImage: input.backupImage, dataVolume: DATA_VOLUME, dataPath: DATA_PATH, storagePort: input.storagePort, perPodDestination: input.perPodBackupDestination };
    containers.push(backupSidecar(spec.backup, b));
    if (spec.backup.restore.onStart) initContainers.push(restoreInitContainer(spec.backup, b));
    volumes.push(...backupVolumes(spec.backup));
  }
  const template = podTemplate(spec, {
    labels: input.meta.labels,
    serviceAccountName: input.meta.name,
    containers,
    initContainers,
    volumes,
    // Storage flushes buffers on SIGTERM; give it time before SIGKILL.
    terminationGracePeriodSeconds: 60,
    ...(input.imagePullSecrets === undefined ? {} : { imagePullSecrets: input.imagePullSecrets }),
  });
  const claims = dataVolumeClaims(spec.storage, input.selector);
  return {
    apiVersion: 'apps/v1',
    kind: 'StatefulSet',
    metadata: { name: input.meta.name, namespace: input.meta.namespace, labels: { ...input.meta.labels } },
    spec: {
      replicas: input.replicas,
      serviceName: input.serviceName,
      selector: { matchLabels: { ...input.selector } },
      podManagementPolicy: 'Parallel',
      updateStrategy: { type: 'OnDelete' },
      template,
      ...(claims.length > 0 ? { volumeClaimTemplates: claims } : {}),
    },
  };
}
