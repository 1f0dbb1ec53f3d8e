// The backupmanager sidecar and restore init container that run next to a storage container.
import type { IContainer } from 'kubernetes-models/v1/Container';
import type { IEnvVar } from 'kubernetes-models/v1/EnvVar';
import type { IVolume } from 'kubernetes-models/v1/Volume';
import type { IVolumeMount } from 'kubernetes-models/v1/VolumeMount';
import type { BackupSpec } from '../../api/backup.ts';
import { renderArgs, resolveImage } from './options.ts';
import { restrictedSecurityContext } from './pod.ts';

/** BACKUP_CONTAINER names the sidecar; the restore init container shares its recorded image. */
export const BACKUP_CONTAINER = 'backup';
/** BACKUP_PORT is the backupmanager HTTP API port (SPEC C). */
export const BACKUP_PORT = 8300;
/** BACKUPMANAGER_COMMAND starts the binary in the backupmanager image (see images/backupmanager). */
export const BACKUPMANAGER_COMMAND = ['node', '/app/src/cmd/backupmanager.ts'] as const;
const CREDENTIALS_DIR = '/etc/strata/backup-credentials';
const CREDENTIALS_VOLUME = 'backup-credentials';

/** BackupInput says where the data lives and how to reach the storage's snapshot API. */
export interface BackupInput {
  readonly defaultImage: string;
  readonly dataVolume: string;
  readonly dataPath: string;
  /** storagePort is the HTTP port of the storage container in the same Pod. */
  readonly storagePort: number;
  /** perPodDestination appends "/$(POD_NAME)" to the destination (cluster storage). */
  readonly perPodDestination: boolean;
}

/** backupDestination is the -dst value; "$(POD_NAME)" is expanded by the kubelet from the env. */
export function backupDestination(spec: BackupSpec, perPod: boolean): string {
  const root = spec.destination.replace(/\/+$/, '');
  return perPod ? `${root}/$(POD_NAME)` : root;
}

// Flags shared by the sidecar and `backupmanager restore`: where backups are and how to reach them.
function storeFlags(spec: BackupSpec, input: BackupInput): Record<string, string | undefined> {
  return {
    dst: backupDestination(spec, input.perPodDestination),
    storageDataPath: input.dataPath,
    credsFilePath: spec.credentialsSecret === undefined ? undefined : `${CREDENTIALS_DIR}/${spec.credentialsSecret.key}`,
    customObjEndpoint: spec.customS3Endpoint,
    objForcePathStyle: spec.s3ForcePathStyle ? undefined : 'false',
  };
}

function scheduleFlags(spec: BackupSpec): Record<string, string | undefined> {
  const flags: Record<string, string | undefined> = {
    concurrency: String(spec.concurrency),
    maxBytesPerSecond: spec.maxBytesPerSecond > 0 ? String(spec.maxBytesPerSecond) : undefined,
    runOnStart: spec.runOnStart ? 'true' : undefined,
    disableHourly: spec.intervals.hourly ? undefined : 'true',
    disableDaily: spec.intervals.daily ? undefined : 'true',
    disableWeekly: spec.intervals.weekly ? undefined : 'true',
    disableMonthly: spec.intervals.monthly ? undefined : 'true',
  };
  for (const [flag, keep] of Object.entries(spec.retention)) if (keep !== -1) flags[flag] = String(keep);
  return flags;
}

const podNameEnv: IEnvVar = { name: 'POD_NAME', valueFrom: { fieldRef: { apiVersion: 'v1', fieldPath: 'metadata.name' } } };

function mounts(spec: BackupSpec, input: BackupInput): IVolumeMount[] {
  const m: IVolumeMount[] = [{ name: input.dataVolume, mountPath: input.dataPath }];
  if (spec.credentialsSecret !== undefined) m.push({ name: CREDENTIALS_VOLUME, mountPath: CREDENTIALS_DIR, readOnly: true });
  m.push({ name: 'tmp', mountPath: '/tmp' });
  return m;
}

function env(spec: BackupSpec): IEnvVar[] {
  return [podNameEnv, ...((spec.extraEnv ?? []) as IEnvVar[])];
}

/** backupSidecar runs scheduled backups of the data volume, snapshotting via its own Pod. */
export function backupSidecar(spec: BackupSpec, input: BackupInput): IContainer {
  const { image, pullPolicy } = resolveImage(spec.image, input.defaultImage);
  const args = renderArgs(
    storeFlags(spec, input),
    scheduleFlags(spec),
    { httpListenAddr: `:${BACKUP_PORT}`, 'snapshot.createURL': `http://localhost:${input.storagePort}/snapshot/create` },
    spec.extraArgs ?? {},
  );
  const c: IContainer = {
    name: BACKUP_CONTAINER,
    image,
    imagePullPolicy: pullPolicy,
    command: [...BACKUPMANAGER_COMMAND],
    args,
    env: env(spec),
    ports: [{ name: 'backup', containerPort: BACKUP_PORT, protocol: 'TCP' }],
    readinessProbe: { httpGet: { path: '/health', port: 'backup' }, periodSeconds: 10, timeoutSeconds: 5 },
    volumeMounts: mounts(spec, input),
    securityContext: { ...restrictedSecurityContext, capabilities: { drop: ['ALL'] } },
  };
  if (spec.resources !== undefined) c.resources = structuredClone(spec.resources) as IContainer['resources'];
  return c;
}

/**
 * restoreInitContainer runs `backupmanager restore` before the storage starts; it restores only
 * when a restore mark exists in the data directory and exits 0 otherwise (SPEC C, restore).
 */
export function restoreInitContainer(spec: BackupSpec, input: BackupInput): IContainer {
  const { image, pullPolicy } = resolveImage(spec.image, input.defaultImage);
  const c: IContainer = {
    name: 'restore',
    image,
    imagePullPolicy: pullPolicy,
    command: [...BACKUPMANAGER_COMMAND],
    args: ['restore', ...renderArgs(storeFlags(spec, input), { concurrency: String(spec.concurrency) })],
    env: env(spec),
    volumeMounts: mounts(spec, input),
    securityContext: { ...restrictedSecurityContext, capabilities: { drop: ['ALL'] } },
  };
  if (spec.resources !== undefined) c.resources = structuredClone(spec.resources) as IContainer['resources'];
  return c;
}

/** backupVolumes are the extra Pod volumes the backup containers need. */
export function backupVolumes(spec: BackupSpec): IVolume[] {
  if (spec.credentialsSecret === undefined) return [];
  return [{ name: CREDENTIALS_VOLUME, secret: { secretName: spec.credentialsSecret.name, items: [{ key: spec.credentialsSecret.key, path: spec.credentialsSecret.key }] } }];
}
