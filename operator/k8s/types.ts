// Plain-JSON Kubernetes object shapes shared by the operator, the client and the fakes.

/** OwnerReference links a child object to the resource that owns it (garbage collection). */
export interface OwnerReference {
  apiVersion: string;
  kind: string;
  name: string;
  uid: string;
  controller?: boolean;
  blockOwnerDeletion?: boolean;
}

/** ObjectMeta is the metadata subset the operator reads and writes. */
export interface ObjectMeta {
  name?: string;
  generateName?: string;
  namespace?: string;
  uid?: string;
  resourceVersion?: string;
  generation?: number;
  creationTimestamp?: string;
  deletionTimestamp?: string;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
  ownerReferences?: OwnerReference[];
  finalizers?: string[];
  managedFields?: unknown[];
}

/** KubeObject is any Kubernetes object as plain JSON. */
export interface KubeObject {
  apiVersion: string;
  kind: string;
  metadata: ObjectMeta;
  [field: string]: unknown;
}

/** ObjectKey names one object; namespace is empty for cluster-scoped kinds. */
export interface ObjectKey {
  readonly namespace: string;
  readonly name: string;
}

/** keyString renders a key as "namespace/name" (or "name"); the work queue's key format. */
export function keyString(key: ObjectKey): string {
  return key.namespace === '' ? key.name : `${key.namespace}/${key.name}`;
}

/** parseKeyString reverses keyString. */
export function parseKeyString(text: string): ObjectKey {
  const slash = text.indexOf('/');
  return slash < 0 ? { namespace: '', name: text } : { namespace: text.slice(0, slash), name: text.slice(slash + 1) };
}

/** objectKey returns the key of an object. */
export function objectKey(obj: KubeObject): ObjectKey {
  return { namespace: obj.metadata.namespace ?? '', name: obj.metadata.name ?? '' };
}

/** CustomResource is a strata.dev resource with a typed spec and status. */
export interface CustomResource<Spec, Status> extends KubeObject {
  spec: Spec;
  status?: Status;
}
