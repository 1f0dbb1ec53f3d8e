// Typed custom resources of the five kinds.
import type { CustomResource } from '../k8s/types.ts';
import type { AuthProxySpec, AuthProxyStatus } from './auth-proxy.ts';
import type { AuthProxyUserSpec, AuthProxyUserStatus } from './auth-proxy-user.ts';
import type { TSDBClusterSpec, TSDBClusterStatus } from './tsdb-cluster.ts';
import type { TSDBGatewaySpec, TSDBGatewayStatus } from './tsdb-gateway.ts';
import type { TSDBSingleSpec, TSDBSingleStatus } from './tsdb-single.ts';

/** The five custom resources, with defaulted specs as the operator sees them. */
export type TSDBSingle = CustomResource<TSDBSingleSpec, TSDBSingleStatus>;
export type TSDBCluster = CustomResource<TSDBClusterSpec, TSDBClusterStatus>;
export type TSDBGateway = CustomResource<TSDBGatewaySpec, TSDBGatewayStatus>;
export type AuthProxy = CustomResource<AuthProxySpec, AuthProxyStatus>;
export type AuthProxyUser = CustomResource<AuthProxyUserSpec, AuthProxyUserStatus>;
