// AuthProxy → ServiceAccount, config Secret, Service, Deployment, optional PDB.
import type { IDeployment } from 'kubernetes-models/apps/v1/Deployment';
import type { AuthProxy } from '../../api/resources.ts';
import { commonLabels, selectorLabels } from '../../labels.ts';
import type { KubeObject } from '../../k8s/types.ts';
import { auxName, workloadName } from '../../names.ts';
import { command, PORTS } from '../common/binaries.ts';
import { podDisruptionBudget, service, serviceAccount } from '../common/objects.ts';
import { baseImage, renderArgs } from '../common/options.ts';
import type { BuildOptions } from '../common/options.ts';
import { mainContainer, podTemplate } from '../common/pod.ts';

const CONFIG_DIR = '/etc/strata/authproxy';
/** CONFIG_KEY is the key of the config file in the config Secret. */
export const CONFIG_KEY = 'config.yaml';

/** configSecretName is the name of the Secret holding a proxy's rendered config. */
export function configSecretName(proxyName: string): string {
  return auxName('authproxy', proxyName, 'config');
}

/**
 * buildAuthProxy returns the desired children of a (defaulted) AuthProxy given its rendered
 * config. The config lives in a Secret (it holds passwords). The Pods re-read it every
 * spec.configCheckInterval, so user changes need no restart and the template carries no hash
 * of it: Pods roll only when the proxy's own settings change.
 */
export function buildAuthProxy(cr: AuthProxy, opts: BuildOptions, configYaml: string): KubeObject[] {
  const spec = cr.spec;
  const instance = cr.metadata.name!;
  const m = { name: workloadName('authproxy', instance), namespace: cr.metadata.namespace!, labels: commonLabels('authproxy', instance, cr.kind) };
  const selector = selectorLabels('authproxy', instance);
  const secretName = configSecretName(instance);
  const flags = {
    eula: spec.eula ? 'true' : undefined,
    httpListenAddr: `:${PORTS.authproxy}`,
    'auth.config': `${CONFIG_DIR}/${CONFIG_KEY}`,
    configCheckInterval: spec.configCheckInterval,
    maxConcurrentRequests: spec.maxConcurrentRequests === undefined ? undefined : String(spec.maxConcurrentRequests),
    maxConcurrentPerUserRequests: spec.maxConcurrentPerUserRequests === undefined ? undefined : String(spec.maxConcurrentPerUserRequests),
  };
  const container = mainContainer(spec, {
    name: 'authproxy',
    defaultImage: baseImage(opts, 'authproxy', 'authproxy'),
    command: command('authproxy'),
    args: renderArgs(flags, spec.extraArgs ?? {}),
    ports: [{ name: 'http', containerPort: PORTS.authproxy }],
    volumeMounts: [{ name: 'config', mountPath: CONFIG_DIR, readOnly: true }],
  });
  const template = podTemplate(spec, {
    labels: m.labels,
    serviceAccountName: m.name,
    containers: [container],
    volumes: [{ name: 'config', secret: { secretName } }],
    ...(spec.imagePullSecrets === undefined ? {} : { imagePullSecrets: spec.imagePullSecrets }),
  });
  const deployment: IDeployment = {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: m.name, namespace: m.namespace, labels: { ...m.labels } },
    spec: { replicas: spec.replicas, selector: { matchLabels: selector }, strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: '25%', maxUnavailable: 0 } }, template },
  };
  const objects: KubeObject[] = [
    serviceAccount(m) as KubeObject,
    { apiVersion: 'v1', kind: 'Secret', metadata: { name: secretName, namespace: m.namespace, labels: { ...m.labels } }, type: 'Opaque', data: { [CONFIG_KEY]: Buffer.from(configYaml).toString('base64') } },
    service(m, { selector, type: spec.service.type, ports: [{ name: 'http', port: PORTS.authproxy }], ...(spec.service.annotations === undefined ? {} : { annotations: spec.service.annotations }) }) as KubeObject,
  ];
  if (spec.podDisruptionBudget !== undefined) objects.push(podDisruptionBudget(m, selector, spec.podDisruptionBudget) as KubeObject);
  objects.push(deployment as KubeObject);
  return objects;
}
