// AuthProxyUser: one set of credentials with its routes, rendered into every AuthProxy that selects it.
import { ipFilters, secretKeyRef, tsdbRef } from './common.ts';
import { arr, int, obj, oneOf, str } from './schema.ts';
import type { Static } from './schema.ts';
import { conditions } from './status.ts';

/** headers are "Name: value" lines added to proxied requests. */
export const headers = arr(str({ description: '"Header-Name: value".', pattern: '^[A-Za-z0-9-]+:.*$', maxLength: 4096 }), {
  description: 'Headers added to every proxied request.',
  maxItems: 64,
  example: ['X-Scope: team-a'],
});

const srcPaths = arr(str({ description: 'Path regular expression (anchored).', minLength: 1, maxLength: 1024 }), {
  description: 'Paths routed to this target (url_map src_paths); absent means all paths.',
  maxItems: 64,
  example: ['/api/v1/query.*', '/api/v1/label/[^/]+/values'],
});

/** target is one route target of a user (URL or TSDB reference). */
export const target = obj(
  {
    url: str({ description: 'Target URL prefix.', format: 'uri', pattern: '^https?://.+', maxLength: 2048, example: 'http://tsdb-single-main.metrics:8428' }),
    ref: tsdbRef,
    component: oneOf(['insert', 'select'] as const, { description: 'For a TSDBCluster ref: the role to route to.' }),
    tenant: str({ description: 'For a TSDBCluster ref: the tenant as accountID or accountID:projectID.', pattern: '^[0-9]+(:[0-9]+)?$', default: '0', maxLength: 21 }),
    paths: srcPaths,
    headers,
  },
  {
    description: 'Where requests go: a URL, or a TSDB resource the operator resolves to its Service URL.',
    rules: [
      { rule: 'has(self.url) != has(self.ref)', message: 'set exactly one of url and ref' },
      { rule: "!has(self.component) || (has(self.ref) && self.ref.kind == 'TSDBCluster')", message: 'component applies only to a TSDBCluster ref' },
      { rule: "!has(self.ref) || self.ref.kind != 'TSDBCluster' || has(self.component)", message: 'a TSDBCluster ref needs component: insert or select' },
    ],
  },
);
/** TargetSpec is a defaulted target. */
export type TargetSpec = Static<typeof target>;

/** urlMapEntry is an explicit url_map route. */
export const urlMapEntry = obj(
  {
    srcPaths: { ...srcPaths, json: { ...srcPaths.json, minItems: 1, description: 'Path regular expressions (src_paths).' } },
    urlPrefix: arr(str({ description: 'Target URL.', format: 'uri', maxLength: 2048, example: 'http://tsdb-select-prod.metrics.svc:8481/select/0/prometheus' }), { description: 'Targets (url_prefix), balanced.', minItems: 1, maxItems: 64 }),
    headers,
  },
  { description: 'An explicit url_map route.', required: ['srcPaths', 'urlPrefix'] },
);
/** UrlMapEntry is a defaulted url_map route. */
export type UrlMapEntry = Static<typeof urlMapEntry>;

/** authProxyUserSpec is the schema of AuthProxyUser.spec. */
export const authProxyUserSpec = obj(
  {
    username: str({ description: 'Basic auth username.', minLength: 1, maxLength: 256, example: 'team-a' }),
    passwordRef: secretKeyRef,
    bearerTokenRef: secretKeyRef,
    name: str({ description: 'Name shown in the username label of metrics instead of the real username; namespace/name when empty.', maxLength: 256, example: 'team-a' }),
    targets: arr(target, { description: 'Targets; with paths they become url_map routes, without they are the url_prefix.', maxItems: 64 }),
    urlMap: arr(urlMapEntry, { description: 'Explicit path routes (url_map), after the ones from targets.', maxItems: 256 }),
    defaultURL: arr(str({ description: 'Target URL.', format: 'uri', maxLength: 2048, example: 'http://tsdb-single-main.metrics.svc:8428' }), { description: 'Targets for requests matching no route (default_url).', maxItems: 16 }),
    headers,
    maxConcurrentRequests: int({ description: 'Per-user concurrent request cap (max_concurrent_requests).', minimum: 1, example: 20 }),
    ipFilters,
  },
  {
    description: 'Credentials and routes of one auth proxy user.',
    rules: [
      { rule: 'has(self.username) != has(self.bearerTokenRef)', message: 'set either username (with optional passwordRef) or bearerTokenRef' },
      { rule: '!has(self.passwordRef) || has(self.username)', message: 'passwordRef needs username' },
      {
        rule: '(has(self.targets) && size(self.targets) > 0) || (has(self.urlMap) && size(self.urlMap) > 0) || (has(self.defaultURL) && size(self.defaultURL) > 0)',
        message: 'a user needs targets, urlMap or defaultURL',
      },
    ],
  },
);

/** authProxyUserStatus is the schema of AuthProxyUser.status. */
export const authProxyUserStatus = obj(
  {
    observedGeneration: int({ description: 'metadata.generation the status was computed for.', minimum: 0 }),
    phase: oneOf(['Accepted', 'Rejected', 'Unselected'] as const, { description: 'Accepted: in the config of every selecting AuthProxy; Rejected: left out, see conditions.' }),
    conditions,
    authProxies: arr(str({ description: 'namespace/name.', maxLength: 512 }), { description: 'AuthProxies whose config holds this user.', maxItems: 256, listType: 'set' }),
  },
  { description: 'Observed state of an auth proxy user.' },
);

/** AuthProxyUserSpec is a defaulted AuthProxyUser spec. */
export type AuthProxyUserSpec = Static<typeof authProxyUserSpec>;
/** AuthProxyUserStatus is the AuthProxyUser status. */
export type AuthProxyUserStatus = Static<typeof authProxyUserStatus>;
