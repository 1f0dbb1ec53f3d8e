// Defaulting of resources read from the API server, so the operator always sees complete specs.
import type { KubeObject } from '../k8s/types.ts';
import { kindDefinition } from './kinds.ts';
import { applyDefaults } from './structural.ts';

/**
 * defaultedSpec returns a copy of a strata.dev resource with its spec defaulted by the CRD
 * schema (the API server normally did this already; doing it again is idempotent).
 */
export function defaultedSpec<T extends KubeObject>(obj: T): T {
  const def = kindDefinition(obj.kind);
  return { ...obj, spec: applyDefaults(def.spec.json, obj['spec'] ?? {}) };
}
