// Labels and annotations the operator puts on everything it creates.
import type { Component } from './names.ts';

/** MANAGED_BY is the app.kubernetes.io/managed-by value of every child. */
export const MANAGED_BY = 'strata-operator';
/** OWNER_KIND_LABEL lets Pod events be mapped back to the resource without walking owners. */
export const OWNER_KIND_LABEL = 'strata.dev/owner-kind';
/** CONFIG_HASH_ANNOTATION on a Pod template changes only when files read at start change. */
export const CONFIG_HASH_ANNOTATION = 'strata.dev/config-hash';
/** Standard Kubernetes label keys. */
export const INSTANCE_LABEL = 'app.kubernetes.io/instance';
export const NAME_LABEL = 'app.kubernetes.io/name';
export const MANAGED_BY_LABEL = 'app.kubernetes.io/managed-by';

/** selectorLabels identify the Pods of one component; immutable once a workload exists. */
export function selectorLabels(component: Component, instance: string): Record<string, string> {
  return { [INSTANCE_LABEL]: instance, [MANAGED_BY_LABEL]: MANAGED_BY, [NAME_LABEL]: component };
}

/** commonLabels go on every object and Pod of a component. */
export function commonLabels(component: Component, instance: string, ownerKind: string): Record<string, string> {
  return { ...selectorLabels(component, instance), 'app.kubernetes.io/part-of': 'strata', [OWNER_KIND_LABEL]: ownerKind };
}

/** MANAGED_SELECTOR selects every object the operator manages (informer filter). */
export const MANAGED_SELECTOR = `${MANAGED_BY_LABEL}=${MANAGED_BY}`;
