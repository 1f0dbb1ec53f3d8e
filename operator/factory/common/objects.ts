// Small objects every component has: ServiceAccount, Service, PodDisruptionBudget, HPA.
import type { IHorizontalPodAutoscaler } from 'kubernetes-models/autoscaling/v2/HorizontalPodAutoscaler';
import type { IMetricSpec } from 'kubernetes-models/autoscaling/v2/MetricSpec';
import type { IPodDisruptionBudget } from 'kubernetes-models/policy/v1/PodDisruptionBudget';
import type { IService } from 'kubernetes-models/v1/Service';
import type { IServiceAccount } from 'kubernetes-models/v1/ServiceAccount';
import type { HorizontalPodAutoscalerSpec, PodDisruptionBudgetSpec } from '../../api/common.ts';

/** Meta is the name, namespace and labels of a generated object. */
export interface Meta {
  readonly name: string;
  readonly namespace: string;
  readonly labels: Readonly<Record<string, string>>;
}

const metadata = (m: Meta, annotations?: Readonly<Record<string, string>>) => ({
  name: m.name,
  namespace: m.namespace,
  labels: { ...m.labels },
  ...(annotations !== undefined && Object.keys(annotations).length > 0 ? { annotations: { ...annotations } } : {}),
});

/** serviceAccount: Pods do not talk to the API, so no token is mounted. */
export function serviceAccount(m: Meta): IServiceAccount {
  return { apiVersion: 'v1', kind: 'ServiceAccount', metadata: metadata(m), automountServiceAccountToken: false };
}

/** ServiceInput describes a component Service. */
export interface ServiceInput {
  readonly selector: Readonly<Record<string, string>>;
  readonly ports: readonly { readonly name: string; readonly port: number }[];
  readonly type?: 'ClusterIP' | 'NodePort' | 'LoadBalancer';
  readonly headless?: boolean;
  readonly annotations?: Readonly<Record<string, string>>;
}

/** service builds a Service; a headless one publishes not-ready addresses for StatefulSet peers. */
export function service(m: Meta, input: ServiceInput): IService {
  const spec: NonNullable<IService['spec']> = {
    type: input.headless === true ? 'ClusterIP' : (input.type ?? 'ClusterIP'),
    selector: { ...input.selector },
    ports: input.ports.map((p) => ({ name: p.name, port: p.port, targetPort: p.name, protocol: 'TCP' })),
  };
  if (input.headless === true) {
    spec.clusterIP = 'None';
    spec.publishNotReadyAddresses = true;
  }
  return { apiVersion: 'v1', kind: 'Service', metadata: metadata(m, input.annotations), spec };
}

/** podDisruptionBudget covers the Pods of one component. */
export function podDisruptionBudget(m: Meta, selector: Readonly<Record<string, string>>, spec: PodDisruptionBudgetSpec): IPodDisruptionBudget {
  const pdbSpec: NonNullable<IPodDisruptionBudget['spec']> = { selector: { matchLabels: { ...selector } } };
  if (spec.minAvailable !== undefined) pdbSpec.minAvailable = spec.minAvailable;
  if (spec.maxUnavailable !== undefined) pdbSpec.maxUnavailable = spec.maxUnavailable;
  return { apiVersion: 'policy/v1', kind: 'PodDisruptionBudget', metadata: metadata(m), spec: pdbSpec };
}

/** horizontalPodAutoscaler scales a Deployment on CPU and/or memory utilisation. */
export function horizontalPodAutoscaler(m: Meta, deployment: string, spec: HorizontalPodAutoscalerSpec): IHorizontalPodAutoscaler {
  const metrics: IMetricSpec[] = [];
  const resource = (name: string, target: number): IMetricSpec => ({ type: 'Resource', resource: { name, target: { type: 'Utilization', averageUtilization: target } } });
  if (spec.targetCPUUtilizationPercentage !== undefined) metrics.push(resource('cpu', spec.targetCPUUtilizationPercentage));
  if (spec.targetMemoryUtilizationPercentage !== undefined) metrics.push(resource('memory', spec.targetMemoryUtilizationPercentage));
  return {
    apiVersion: 'autoscaling/v2',
    kind: 'HorizontalPodAutoscaler',
    metadata: metadata(m),
    spec: { scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: deployment }, minReplicas: spec.minReplicas, maxReplicas: spec.maxReplicas, metrics },
  };
}
