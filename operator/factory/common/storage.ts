// The data volume of storage Pods: a volume claim template, or an emptyDir without persistence.
import type { IPersistentVolumeClaim } from 'kubernetes-models/v1/PersistentVolumeClaim';
import type { IVolume } from 'kubernetes-models/v1/Volume';
import type { PersistentStorage } from '../../api/common.ts';
import { DATA_VOLUME } from './binaries.ts';

/** dataVolumeClaims returns the StatefulSet volumeClaimTemplates (empty without persistence). */
export function dataVolumeClaims(storage: PersistentStorage | undefined, labels: Readonly<Record<string, string>>): IPersistentVolumeClaim[] {
  if (storage === undefined) return [];
  const spec: NonNullable<IPersistentVolumeClaim['spec']> = {
    accessModes: storage.accessModes !== undefined && storage.accessModes.length > 0 ? [...storage.accessModes] : ['ReadWriteOnce'],
    resources: { requests: { storage: storage.size } },
  };
  if (storage.storageClassName !== undefined) spec.storageClassName = storage.storageClassName;
  return [{ apiVersion: 'v1', kind: 'PersistentVolumeClaim', metadata: { name: DATA_VOLUME, labels: { ...labels } }, spec }];
}

/** dataVolumes returns the Pod volume for data when no claim template provides it. */
export function dataVolumes(storage: PersistentStorage | undefined): IVolume[] {
  return storage === undefined ? [{ name: DATA_VOLUME, emptyDir: {} }] : [];
}
