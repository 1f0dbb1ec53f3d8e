// The RBAC rules the operator needs — no more. The Helm chart's ClusterRole must equal this list
// (test/helm checks), rbac.test.ts ties each rule to the code that uses it, and the integration
// suite runs the operator against a fake API server that enforces exactly these rules.
import { GROUP, KINDS } from './api/kinds.ts';

/** PolicyRule is an RBAC rule. */
export interface PolicyRule {
  readonly apiGroups: readonly string[];
  readonly resources: readonly string[];
  readonly verbs: readonly string[];
}

const CUSTOM_PLURALS = KINDS.map((k) => k.plural);

/** PERMISSIONS are the operator's ClusterRole rules, sorted by group then resource. */
export const PERMISSIONS: readonly PolicyRule[] = [
  // Informers on every kind the operator reads.
  { apiGroups: [GROUP], resources: CUSTOM_PLURALS, verbs: ['list', 'watch'] },
  // Status is written with server-side apply on the status subresource.
  { apiGroups: [GROUP], resources: CUSTOM_PLURALS.map((p) => `${p}/status`), verbs: ['patch'] },
  // Children: watched, server-side applied (create + patch), pruned (delete).
  { apiGroups: [''], resources: ['configmaps', 'secrets', 'serviceaccounts', 'services'], verbs: ['create', 'delete', 'list', 'patch', 'watch'] },
  { apiGroups: ['apps'], resources: ['deployments', 'statefulsets'], verbs: ['create', 'delete', 'list', 'patch', 'watch'] },
  { apiGroups: ['autoscaling'], resources: ['horizontalpodautoscalers'], verbs: ['create', 'delete', 'list', 'patch', 'watch'] },
  { apiGroups: ['policy'], resources: ['poddisruptionbudgets'], verbs: ['create', 'delete', 'list', 'patch', 'watch'] },
  // Pods are watched for rollouts and replaced one at a time through the eviction API.
  { apiGroups: [''], resources: ['pods'], verbs: ['list', 'watch'] },
  { apiGroups: [''], resources: ['pods/eviction'], verbs: ['create'] },
  // Namespace labels feed AuthProxy.spec.userNamespaceSelector.
  { apiGroups: [''], resources: ['namespaces'], verbs: ['list', 'watch'] },
  { apiGroups: [''], resources: ['events'], verbs: ['create'] },
  // Leader election.
  { apiGroups: ['coordination.k8s.io'], resources: ['leases'], verbs: ['create', 'get', 'update'] },
];

/** grants lists every "verb group/resource" the rules allow (the fake API server's audit format). */
export function grants(rules: readonly PolicyRule[]): string[] {
  return rules.flatMap((r) => r.apiGroups.flatMap((g) => r.resources.flatMap((res) => r.verbs.map((v) => `${v} ${g}/${res}`)))).sort();
}
