// Validation of built-in Kubernetes objects against the official OpenAPI schemas shipped in
// kubernetes-models (a dev dependency: only tests and fakes import this file).
import { ClusterRole } from 'kubernetes-models/rbac.authorization.k8s.io/v1/ClusterRole';
import { ClusterRoleBinding } from 'kubernetes-models/rbac.authorization.k8s.io/v1/ClusterRoleBinding';
import { Role } from 'kubernetes-models/rbac.authorization.k8s.io/v1/Role';
import { RoleBinding } from 'kubernetes-models/rbac.authorization.k8s.io/v1/RoleBinding';
import { Deployment } from 'kubernetes-models/apps/v1/Deployment';
import { StatefulSet } from 'kubernetes-models/apps/v1/StatefulSet';
import { HorizontalPodAutoscaler } from 'kubernetes-models/autoscaling/v2/HorizontalPodAutoscaler';
import { Lease } from 'kubernetes-models/coordination.k8s.io/v1/Lease';
import { PodDisruptionBudget } from 'kubernetes-models/policy/v1/PodDisruptionBudget';
import { CustomResourceDefinition } from 'kubernetes-models/apiextensions.k8s.io/v1/CustomResourceDefinition';
import { ConfigMap } from 'kubernetes-models/v1/ConfigMap';
import { Event } from 'kubernetes-models/v1/Event';
import { Namespace } from 'kubernetes-models/v1/Namespace';
import { Pod } from 'kubernetes-models/v1/Pod';
import { Secret } from 'kubernetes-models/v1/Secret';
import { Service } from 'kubernetes-models/v1/Service';
import { ServiceAccount } from 'kubernetes-models/v1/ServiceAccount';

interface Validatable {
  validate(): void;
}
type ModelClass = new (data: never) => Validatable;

const MODELS: Record<string, ModelClass> = {
  'v1/ConfigMap': ConfigMap as unknown as ModelClass,
  'v1/Event': Event as unknown as ModelClass,
  'v1/Namespace': Namespace as unknown as ModelClass,
  'v1/Pod': Pod as unknown as ModelClass,
  'v1/Secret': Secret as unknown as ModelClass,
  'v1/Service': Service as unknown as ModelClass,
  'v1/ServiceAccount': ServiceAccount as unknown as ModelClass,
  'apps/v1/Deployment': Deployment as unknown as ModelClass,
  'apps/v1/StatefulSet': StatefulSet as unknown as ModelClass,
  'autoscaling/v2/HorizontalPodAutoscaler': HorizontalPodAutoscaler as unknown as ModelClass,
  'coordination.k8s.io/v1/Lease': Lease as unknown as ModelClass,
  'policy/v1/PodDisruptionBudget': PodDisruptionBudget as unknown as ModelClass,
  'apiextensions.k8s.io/v1/CustomResourceDefinition': CustomResourceDefinition as unknown as ModelClass,
  'rbac.authorization.k8s.io/v1/ClusterRole': ClusterRole as unknown as ModelClass,
  'rbac.authorization.k8s.io/v1/ClusterRoleBinding': ClusterRoleBinding as unknown as ModelClass,
  'rbac.authorization.k8s.io/v1/Role': Role as unknown as ModelClass,
  'rbac.authorization.k8s.io/v1/RoleBinding': RoleBinding as unknown as ModelClass,
};

/** hasK8sSchema reports whether a built-in schema is known for the object's apiVersion/kind. */
export function hasK8sSchema(obj: { apiVersion?: unknown; kind?: unknown }): boolean {
  return MODELS[`${String(obj.apiVersion)}/${String(obj.kind)}`] !== undefined;
}

/**
 * validateK8sObject checks a built-in object against its Kubernetes schema; returns the error
 * message, or undefined when valid. Throws for kinds it has no schema for.
 */
export function validateK8sObject(obj: { apiVersion?: unknown; kind?: unknown }): string | undefined {
  const Model = MODELS[`${String(obj.apiVersion)}/${String(obj.kind)}`];
  if (Model === undefined) throw new Error(`no Kubernetes schema for ${String(obj.apiVersion)} ${String(obj.kind)}`);
  try {
    new Model(structuredClone(obj) as never).validate();
    return undefined;
  } catch (err) {
    return (err as Error).message;
  }
}
