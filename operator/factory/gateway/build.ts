// TSDBGateway → ServiceAccount, Service, Deployment, rate-limit ConfigMap, optional PDB.
import type { IDeployment } from 'kubernetes-models/apps/v1/Deployment';
import type { IVolume } from 'kubernetes-models/v1/Volume';
import type { IVolumeProjection } from 'kubernetes-models/v1/VolumeProjection';
import { dump } from 'js-yaml';
import type { TSDBGateway } from '../../api/resources.ts';
import { commonLabels, CONFIG_HASH_ANNOTATION, selectorLabels } from '../../labels.ts';
import type { KubeObject } from '../../k8s/types.ts';
import { auxName, workloadName } from '../../names.ts';
import { command, PORTS } from '../common/binaries.ts';
import { contentHash } from '../common/hash.ts';
import { podDisruptionBudget, service, serviceAccount } from '../common/objects.ts';
import { baseImage, renderArgs } from '../common/options.ts';
import type { BuildOptions } from '../common/options.ts';
import { mainContainer, podTemplate } from '../common/pod.ts';
import { tsdbEndpoints } from '../common/refs.ts';

const KEYS_DIR = '/etc/strata/gateway-keys';
const RATELIMIT_DIR = '/etc/strata/ratelimit';

/** GatewayInputs are values the controller read from other objects. */
export interface GatewayInputs {
  /** publicKeys holds the PEM text of spec.auth.publicKeys, in order (for the config hash). */
  readonly publicKeys: readonly string[];
}

/** rateLimitConfig renders spec.rateLimit.limits as the -ratelimit.config YAML (SPEC A2). */
export function rateLimitConfig(cr: TSDBGateway): string {
  const limits = (cr.spec.rateLimit.limits ?? []).map((l) => {
    const entry: Record<string, unknown> = { type: l.type, value: l.value, resolution: l.resolution };
    if (l.accountID !== undefined) entry['account_id'] = l.accountID;
    if (l.projectID !== undefined) entry['project_id'] = l.projectID;
    return entry;
  });
  return dump({ limits }, { noRefs: true, lineWidth: -1 });
}

function keyVolume(cr: TSDBGateway): { volume: IVolume | undefined; files: string[] } {
  const sources: IVolumeProjection[] = [];
  const files: string[] = [];
  (cr.spec.auth.publicKeys ?? []).forEach((k, i) => {
    const path = `key-${i}.pem`;
    files.push(`${KEYS_DIR}/${path}`);
    if (k.secretKeyRef !== undefined) sources.push({ secret: { name: k.secretKeyRef.name, items: [{ key: k.secretKeyRef.key, path }] } });
    else if (k.configMapKeyRef !== undefined) sources.push({ configMap: { name: k.configMapKeyRef.name, items: [{ key: k.configMapKeyRef.key, path }] } });
  });
  return { volume: sources.length === 0 ? undefined : { name: 'public-keys', projected: { sources } }, files };
}

function gatewayFlags(cr: TSDBGateway, keyFiles: readonly string[]): Record<string, string | undefined> {
  const { target, auth, rateLimit } = cr.spec;
  const ep = target.ref !== undefined ? tsdbEndpoints(target.ref, cr.metadata.namespace!) : undefined;
  const join = (l: readonly string[] | undefined) => (l === undefined || l.length === 0 ? undefined : l.join(','));
  return {
    httpListenAddr: `:${PORTS.gateway}`,
    eula: 'true',
    'read.url': ep?.read ?? target.readURL,
    'write.url': ep?.write ?? target.writeURL,
    clusterMode: (ep?.cluster ?? target.clusterMode === true) ? 'true' : undefined,
    'enable.auth': auth.enabled ? 'true' : undefined,
    'auth.httpHeader': auth.httpHeader === 'Authorization' ? undefined : auth.httpHeader,
    'auth.publicKeyFiles': join(keyFiles),
    'auth.jwksEndpoints': join(auth.jwksURLs),
    'auth.oidcDiscoveryEndpoints': join(auth.oidcDiscoveryURLs),
    'enable.rateLimit': rateLimit.enabled ? 'true' : undefined,
    'ratelimit.config': rateLimit.enabled ? `${RATELIMIT_DIR}/limits.yaml` : undefined,
    // Limits are re-read from the mounted ConfigMap, so changing them needs no restart.
    'ratelimit.configCheckInterval': rateLimit.enabled ? '30s' : undefined,
    'ratelimit.refreshInterval': rateLimit.enabled ? rateLimit.refreshInterval : undefined,
    'ratelimit.extraLabels': rateLimit.enabled ? join(rateLimit.extraLabels) : undefined,
    'datasource.url': rateLimit.enabled ? rateLimit.datasourceURL : undefined,
  };
}

/** buildTSDBGateway returns the desired children of a (defaulted) TSDBGateway. Pure. */
export function buildTSDBGateway(cr: TSDBGateway, opts: BuildOptions, inputs: GatewayInputs): KubeObject[] {
  const spec = cr.spec;
  const instance = cr.metadata.name!;
  const m = { name: workloadName('tsdb-gateway', instance), namespace: cr.metadata.namespace!, labels: commonLabels('tsdb-gateway', instance, cr.kind) };
  const selector = selectorLabels('tsdb-gateway', instance);
  const keys = keyVolume(cr);
  const volumes: IVolume[] = keys.volume === undefined ? [] : [keys.volume];
  const mounts = keys.volume === undefined ? [] : [{ name: 'public-keys', mountPath: KEYS_DIR, readOnly: true }];
  const objects: KubeObject[] = [serviceAccount(m) as KubeObject];
  if (spec.rateLimit.enabled) {
    const cm = auxName('tsdb-gateway', instance, 'ratelimit');
    objects.push({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: cm, namespace: m.namespace, labels: { ...m.labels } }, data: { 'limits.yaml': rateLimitConfig(cr) } });
    volumes.push({ name: 'ratelimit', configMap: { name: cm } });
    mounts.push({ name: 'ratelimit', mountPath: RATELIMIT_DIR, readOnly: true });
  }
  const container = mainContainer(spec, {
    name: 'gateway',
    defaultImage: baseImage(opts, 'gateway', 'gateway'),
    command: command('gateway'),
    args: renderArgs(gatewayFlags(cr, keys.files), spec.extraArgs ?? {}),
    ports: [{ name: 'http', containerPort: PORTS.gateway }],
    volumeMounts: mounts,
  });
  // Keys are read at start only: their content hash rolls the Pods when a key changes.
  const annotations = inputs.publicKeys.length > 0 ? { [CONFIG_HASH_ANNOTATION]: contentHash({ publicKeys: inputs.publicKeys }) } : undefined;
  const template = podTemplate(spec, {
    labels: m.labels,
    serviceAccountName: m.name,
    containers: [container],
    volumes,
    ...(annotations === undefined ? {} : { annotations }),
    ...(spec.imagePullSecrets === undefined ? {} : { imagePullSecrets: spec.imagePullSecrets }),
  });
  const deployment: IDeployment = {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: m.name, namespace: m.namespace, labels: { ...m.labels } },
    spec: { replicas: spec.replicas, selector: { matchLabels: selector }, strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: '25%', maxUnavailable: 0 } }, template },
  };
  objects.push(service(m, { selector, type: spec.service.type, ports: [{ name: 'http', port: PORTS.gateway }], ...(spec.service.annotations === undefined ? {} : { annotations: spec.service.annotations }) }) as KubeObject);
  if (spec.podDisruptionBudget !== undefined) objects.push(podDisruptionBudget(m, selector, spec.podDisruptionBudget) as KubeObject);
  objects.push(deployment as KubeObject);
  return objects;
}
