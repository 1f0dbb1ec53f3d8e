// The strata.dev/v1beta1 API: schemas (the source of truth for crds/), types and defaulting.
export { API_VERSION, GROUP, KINDS, VERSION, kindDefinition, objectSchema } from './kinds.ts';
export type { KindDefinition, PrinterColumn } from './kinds.ts';
export { buildCrd, crdFiles } from './crd.ts';
export type { CustomResourceDefinition } from './crd.ts';
export { applyDefaults, prune } from './structural.ts';
export type { JsonSchemaProps, Static } from './schema.ts';
export type { Condition, ComponentStatus, ConditionType, Phase } from './status.ts';
export type { BackupSpec } from './backup.ts';
export type * from './common.ts';
export type { TSDBSingleSpec, TSDBSingleStatus } from './tsdb-single.ts';
export type { TSDBClusterSpec, TSDBClusterStatus, StorageSection, StatelessSection } from './tsdb-cluster.ts';
export type { TSDBGatewaySpec, TSDBGatewayStatus } from './tsdb-gateway.ts';
export type { AuthProxySpec, AuthProxyStatus, UnauthorizedUserSpec } from './auth-proxy.ts';
export type { AuthProxyUserSpec, AuthProxyUserStatus, TargetSpec, UrlMapEntry } from './auth-proxy-user.ts';
export { defaultedSpec } from './defaulted.ts';
export type { AuthProxy, AuthProxyUser, TSDBCluster, TSDBGateway, TSDBSingle } from './resources.ts';
