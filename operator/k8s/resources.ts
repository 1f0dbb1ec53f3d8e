// The resource types the operator reads or writes, with their REST coordinates.
import { API_VERSION, GROUP, KINDS, VERSION } from '../api/kinds.ts';

/** ResourceType locates a kind in the REST API. */
export interface ResourceType {
  readonly group: string;
  readonly version: string;
  readonly kind: string;
  readonly plural: string;
  readonly namespaced: boolean;
  /** hasStatus: the kind has a status subresource (writes to the main resource ignore status). */
  readonly hasStatus: boolean;
}

/** apiVersionOf returns "group/version" or "version" for the core group. */
export function apiVersionOf(type: ResourceType): string {
  return type.group === '' ? type.version : `${type.group}/${type.version}`;
}

/** typeId is a stable id of a resource type, "plural.group" (or "plural" for the core group). */
export function typeId(type: ResourceType): string {
  return type.group === '' ? type.plural : `${type.plural}.${type.group}`;
}

const core = (kind: string, plural: string, namespaced: boolean, hasStatus: boolean): ResourceType => ({ group: '', version: 'v1', kind, plural, namespaced, hasStatus });

/** BUILTIN are the built-in kinds the operator uses. */
export const BUILTIN = {
  namespace: core('Namespace', 'namespaces', false, true),
  pod: core('Pod', 'pods', true, true),
  service: core('Service', 'services', true, true),
  configMap: core('ConfigMap', 'configmaps', true, false),
  secret: core('Secret', 'secrets', true, false),
  serviceAccount: core('ServiceAccount', 'serviceaccounts', true, false),
  event: core('Event', 'events', true, false),
  statefulSet: { group: 'apps', version: 'v1', kind: 'StatefulSet', plural: 'statefulsets', namespaced: true, hasStatus: true },
  deployment: { group: 'apps', version: 'v1', kind: 'Deployment', plural: 'deployments', namespaced: true, hasStatus: true },
  podDisruptionBudget: { group: 'policy', version: 'v1', kind: 'PodDisruptionBudget', plural: 'poddisruptionbudgets', namespaced: true, hasStatus: true },
  horizontalPodAutoscaler: { group: 'autoscaling', version: 'v2', kind: 'HorizontalPodAutoscaler', plural: 'horizontalpodautoscalers', namespaced: true, hasStatus: true },
  lease: { group: 'coordination.k8s.io', version: 'v1', kind: 'Lease', plural: 'leases', namespaced: true, hasStatus: false },
} as const satisfies Record<string, ResourceType>;

/** CUSTOM maps each strata.dev kind to its resource type. */
export const CUSTOM: Readonly<Record<string, ResourceType>> = Object.fromEntries(
  KINDS.map((k) => [k.kind, { group: GROUP, version: VERSION, kind: k.kind, plural: k.plural, namespaced: true, hasStatus: true }]),
);

const ALL: readonly ResourceType[] = [...Object.values(BUILTIN), ...Object.values(CUSTOM)];

/** resourceTypeOf finds the resource type of an object by apiVersion and kind; throws if unknown. */
export function resourceTypeOf(apiVersion: string, kind: string): ResourceType {
  const type = ALL.find((t) => apiVersionOf(t) === apiVersion && t.kind === kind);
  if (type === undefined) throw new Error(`unknown resource type ${apiVersion} ${kind}`);
  return type;
}

/** customType returns the resource type of a strata.dev kind. */
export function customType(kind: string): ResourceType {
  const type = CUSTOM[kind];
  if (type === undefined) throw new Error(`unknown ${API_VERSION} kind "${kind}"`);
  return type;
}
