// Pod templates: the main container, probes, security context and placement, built the same
// way for every component so Pods look alike and templates stay deterministic.
import type { IContainer } from 'kubernetes-models/v1/Container';
import type { IEnvVar } from 'kubernetes-models/v1/EnvVar';
import type { IPodSpec } from 'kubernetes-models/v1/PodSpec';
import type { IPodTemplateSpec } from 'kubernetes-models/v1/PodTemplateSpec';
import type { IVolume } from 'kubernetes-models/v1/Volume';
import type { IVolumeMount } from 'kubernetes-models/v1/VolumeMount';
import { resolveImage } from './options.ts';
import type { WorkloadSpec } from './options.ts';

/** RUN_AS is the non-root uid/gid the images are built with (see images/*). */
export const RUN_AS = 10001;

/** restrictedSecurityContext meets the "restricted" Pod Security Standard for a container. */
export const restrictedSecurityContext = {
  allowPrivilegeEscalation: false,
  readOnlyRootFilesystem: true,
  runAsNonRoot: true,
  capabilities: { drop: ['ALL'] },
} as const;

/** MainContainerInput describes the component's own container. */
export interface MainContainerInput {
  readonly name: string;
  readonly defaultImage: string;
  readonly command: readonly string[];
  readonly args: readonly string[];
  readonly ports: readonly { readonly name: string; readonly containerPort: number }[];
  readonly volumeMounts: readonly IVolumeMount[];
  readonly env?: readonly IEnvVar[];
}

/** mainContainer builds the component container with /health probes on its "http" port. */
export function mainContainer(spec: WorkloadSpec, input: MainContainerInput): IContainer {
  const { image, pullPolicy } = resolveImage(spec.image, input.defaultImage);
  const env = [...(input.env ?? []), ...((spec.extraEnv ?? []) as IEnvVar[])];
  const container: IContainer = {
    name: input.name,
    image,
    imagePullPolicy: pullPolicy,
    command: [...input.command],
    args: [...input.args],
    ports: input.ports.map((p) => ({ name: p.name, containerPort: p.containerPort, protocol: 'TCP' })),
    readinessProbe: { httpGet: { path: '/health', port: 'http' }, periodSeconds: 5, timeoutSeconds: 5, failureThreshold: 3 },
    livenessProbe: { httpGet: { path: '/health', port: 'http' }, periodSeconds: 10, timeoutSeconds: 5, failureThreshold: 10 },
    volumeMounts: [...input.volumeMounts, { name: 'tmp', mountPath: '/tmp' }],
    securityContext: { ...restrictedSecurityContext, capabilities: { drop: ['ALL'] } },
  };
  if (env.length > 0) container.env = env.map((e) => ({ ...e }));
  if (spec.resources !== undefined) container.resources = structuredClone(spec.resources) as IContainer['resources'];
  return container;
}

/** PodInput assembles a Pod template. */
export interface PodInput {
  readonly labels: Readonly<Record<string, string>>;
  readonly annotations?: Readonly<Record<string, string>>;
  readonly serviceAccountName: string;
  readonly containers: readonly IContainer[];
  readonly initContainers?: readonly IContainer[];
  readonly volumes: readonly IVolume[];
  readonly imagePullSecrets?: readonly { readonly name: string }[];
  readonly terminationGracePeriodSeconds?: number;
}

/** podTemplate builds a Pod template; operator labels win over spec.podMetadata labels. */
export function podTemplate(spec: WorkloadSpec, input: PodInput): IPodTemplateSpec {
  const podSpec: IPodSpec = {
    serviceAccountName: input.serviceAccountName,
    automountServiceAccountToken: false,
    securityContext: { runAsNonRoot: true, runAsUser: RUN_AS, runAsGroup: RUN_AS, fsGroup: RUN_AS, seccompProfile: { type: 'RuntimeDefault' } },
    containers: [...input.containers],
    volumes: [...input.volumes, { name: 'tmp', emptyDir: {} }],
  };
  if (input.initContainers !== undefined && input.initContainers.length > 0) podSpec.initContainers = [...input.initContainers];
  if (input.terminationGracePeriodSeconds !== undefined) podSpec.terminationGracePeriodSeconds = input.terminationGracePeriodSeconds;
  if (input.imagePullSecrets !== undefined && input.imagePullSecrets.length > 0) podSpec.imagePullSecrets = input.imagePullSecrets.map((s) => ({ name: s.name }));
  if (spec.affinity !== undefined) podSpec.affinity = structuredClone(spec.affinity) as IPodSpec['affinity'];
  if (spec.tolerations !== undefined && spec.tolerations.length > 0) podSpec.tolerations = structuredClone(spec.tolerations) as unknown as IPodSpec['tolerations'];
  if (spec.nodeSelector !== undefined) podSpec.nodeSelector = { ...spec.nodeSelector };
  if (spec.priorityClassName !== undefined) podSpec.priorityClassName = spec.priorityClassName;
  const labels = { ...(spec.podMetadata?.labels ?? {}), ...input.labels };
  const annotations = { ...(spec.podMetadata?.annotations ?? {}), ...(input.annotations ?? {}) };
  const metadata: IPodTemplateSpec['metadata'] = { labels };
  if (Object.keys(annotations).length > 0) metadata.annotations = annotations;
  return { metadata, spec: podSpec };
}
