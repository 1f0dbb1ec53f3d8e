// AuthProxy: the credential-matching router; its users are AuthProxyUser resources selected by label.
import { DURATION_PATTERN, imagePullSecrets, ipFilters, labelSelector, paused, podDisruptionBudget, serviceSpec, workload } from './common.ts';
import { arr, bool, int, obj, str } from './schema.ts';
import type { Static } from './schema.ts';
import { baseStatus, componentStatus } from './status.ts';
import { headers, target, urlMapEntry } from './auth-proxy-user.ts';

/** unauthorizedUser is the schema of AuthProxy.spec.unauthorizedUser. */
export const unauthorizedUser = obj(
  {
    targets: arr(target, { description: 'Targets for requests without credentials (url_prefix / url_map).', maxItems: 64 }),
    urlMap: arr(urlMapEntry, { description: 'Explicit path routes (url_map).', maxItems: 256 }),
    defaultURL: arr(str({ description: 'Target URL.', format: 'uri', maxLength: 2048, example: 'http://tsdb-single-main.metrics.svc:8428' }), { description: 'Targets for requests matching no route (default_url).', maxItems: 16 }),
    headers,
    ipFilters,
  },
  {
    description: 'Routes for requests that carry no Authorization header (unauthorized_user).',
    rules: [{ rule: '(has(self.targets) && size(self.targets) > 0) || (has(self.urlMap) && size(self.urlMap) > 0) || (has(self.defaultURL) && size(self.defaultURL) > 0)', message: 'unauthorizedUser needs targets, urlMap or defaultURL' }],
  },
);

/** authProxySpec is the schema of AuthProxy.spec. */
export const authProxySpec = obj(
  {
    paused,
    eula: bool({ description: 'Accept the enterprise license terms (-eula); IP filtering (ipFilters here and in users) needs it.', default: false }),
    replicas: int({ description: 'Number of auth proxy Pods.', minimum: 0, default: 1 }),
    imagePullSecrets,
    ...workload,
    service: serviceSpec,
    podDisruptionBudget,
    userSelector: { ...labelSelector, json: { ...labelSelector.json, description: 'AuthProxyUsers to serve, by label; absent selects none, {} selects all.' } },
    userNamespaceSelector: {
      ...labelSelector,
      json: { ...labelSelector.json, description: 'Namespaces to take AuthProxyUsers from, by label; absent means this namespace only, {} means all watched namespaces.' },
    },
    unauthorizedUser,
    ipFilters,
    configCheckInterval: str({
      description: 'How often the proxy re-reads its config file (-configCheckInterval); user changes reach running Pods without restarts.',
      pattern: DURATION_PATTERN,
      default: '10s',
    }),
    maxConcurrentRequests: int({ description: 'Global concurrent request cap (-maxConcurrentRequests).', minimum: 1, example: 1000 }),
    maxConcurrentPerUserRequests: int({ description: 'Default per-user cap (-maxConcurrentPerUserRequests).', minimum: 1, example: 300 }),
  },
  {
    description: 'Desired state of an auth proxy.',
    defaultEmpty: true,
    rules: [
      { rule: '!has(self.ipFilters) || self.eula', message: 'ipFilters is an enterprise feature: set eula: true to accept the license terms' },
      { rule: '!has(self.unauthorizedUser) || !has(self.unauthorizedUser.ipFilters) || self.eula', message: 'unauthorizedUser.ipFilters is an enterprise feature: set eula: true' },
    ],
  },
);

/** authProxyStatus is the schema of AuthProxy.status. */
export const authProxyStatus = obj(
  {
    ...baseStatus,
    authproxy: componentStatus,
    users: int({ description: 'AuthProxyUsers rendered into the config.', minimum: 0 }),
    rejectedUsers: int({ description: 'Selected AuthProxyUsers left out because they are invalid (see their status).', minimum: 0 }),
    replicas: int({ description: 'Observed Pods (scale subresource).', minimum: 0 }),
    selector: str({ description: 'Label selector of the Pods (scale subresource).' }),
  },
  { description: 'Observed state of an auth proxy.' },
);

/** AuthProxySpec is a defaulted AuthProxy spec. */
export type AuthProxySpec = Static<typeof authProxySpec>;
/** AuthProxyStatus is the AuthProxy status. */
export type AuthProxyStatus = Static<typeof authProxyStatus>;
/** UnauthorizedUserSpec is a defaulted unauthorizedUser section. */
export type UnauthorizedUserSpec = Static<typeof unauthorizedUser>;
