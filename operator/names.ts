// Names of generated objects: stable, DNS-1123 safe, and short enough for what derives from them.
import { createHash } from 'node:crypto';

/** MAX_STATEFULSET_NAME leaves room for "-<ordinal>" Pod names and the "<name>-<10 hex>" revision label. */
export const MAX_STATEFULSET_NAME = 52;
/** MAX_LABEL_NAME is the DNS-1123 label limit (Services, label values). */
export const MAX_LABEL_NAME = 63;

/**
 * dnsName joins parts with "-" and, when the result exceeds max, truncates it and appends an
 * 8-hex hash of the full name, so different long inputs never collide. Pure and deterministic.
 */
export function dnsName(parts: readonly string[], max = MAX_LABEL_NAME): string {
  const full = parts.filter((p) => p !== '').join('-').toLowerCase();
  if (full.length <= max) return full;
  const hash = createHash('sha256').update(full).digest('hex').slice(0, 8);
  return `${full.slice(0, max - 9).replace(/[-.]+$/, '')}-${hash}`;
}

/** Component names the builders use; each is also the app.kubernetes.io/name label value. */
export const COMPONENTS = ['tsdb-single', 'tsdb-storage', 'tsdb-select', 'tsdb-insert', 'tsdb-gateway', 'authproxy'] as const;
/** Component is one of COMPONENTS. */
export type Component = (typeof COMPONENTS)[number];

/** workloadName is the StatefulSet/Deployment/Service name of a component of a resource. */
export function workloadName(component: Component, instance: string): string {
  const max = component === 'tsdb-single' || component === 'tsdb-storage' ? MAX_STATEFULSET_NAME : MAX_LABEL_NAME;
  return dnsName([component, instance], max);
}

/** auxName names a helper object (config Secret, rate-limit ConfigMap) of a component. */
export function auxName(component: Component, instance: string, suffix: string): string {
  return dnsName([component, instance, suffix], MAX_LABEL_NAME);
}

/** serviceHost is the in-cluster DNS name of a Service. */
export function serviceHost(service: string, namespace: string): string {
  return `${service}.${namespace}.svc`;
}
