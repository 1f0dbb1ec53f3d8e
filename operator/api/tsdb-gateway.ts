// TSDBGateway: the JWT gateway with rate limiting in front of a TSDBSingle or TSDBCluster.
import { configMapKeyRef, DURATION_PATTERN, imagePullSecrets, paused, podDisruptionBudget, secretKeyRef, serviceSpec, tsdbRef, workload } from './common.ts';
import { arr, bool, int, obj, oneOf, str } from './schema.ts';
import type { Static } from './schema.ts';
import { baseStatus, componentStatus } from './status.ts';

const url = (description: string, example: string) => str({ description, format: 'uri', pattern: '^https?://.+', maxLength: 2048, example });

export const gatewayTarget = obj(
  {
    ref: tsdbRef,
    readURL: url('Read target (-read.url) when no ref is given.', 'http://tsdb-select.metrics:8481'),
    writeURL: url('Write target (-write.url) when no ref is given.', 'http://tsdb-insert.metrics:8480'),
    clusterMode: bool({ description: 'The targets are cluster TSDB nodes (-clusterMode); implied by a TSDBCluster ref.', example: true }),
  },
  {
    description: 'Where requests go: a TSDB resource, or explicit read and write URLs.',
    rules: [
      { rule: 'has(self.ref) != (has(self.readURL) && has(self.writeURL))', message: 'set either ref or both readURL and writeURL' },
      { rule: '!has(self.ref) || (!has(self.readURL) && !has(self.writeURL))', message: 'ref and URLs are mutually exclusive' },
      { rule: "!has(self.ref) || !has(self.clusterMode) || self.clusterMode == (self.ref.kind == 'TSDBCluster')", message: 'clusterMode contradicts the kind of ref' },
    ],
  },
);

export const publicKeySource = obj(
  {
    secretKeyRef,
    configMapKeyRef,
  },
  {
    description: 'A PEM public key stored in a Secret or ConfigMap key; mounted as a file for -auth.publicKeyFiles.',
    rules: [{ rule: 'has(self.secretKeyRef) != has(self.configMapKeyRef)', message: 'set exactly one of secretKeyRef and configMapKeyRef' }],
  },
);

export const gatewayAuth = obj(
  {
    enabled: bool({ description: 'Check JWTs (-enable.auth).', default: true }),
    httpHeader: str({ description: 'Header holding the token (-auth.httpHeader).', default: 'Authorization', pattern: '^[A-Za-z0-9-]+$', maxLength: 256 }),
    publicKeys: arr(publicKeySource, { description: 'Verification keys from Secrets or ConfigMaps; a key change rolls the Pods.', maxItems: 32 }),
    jwksURLs: arr(url('JWKS endpoint.', 'https://issuer.example.com/.well-known/jwks.json'), { description: 'Key-set endpoints (-auth.jwksEndpoints).', maxItems: 16 }),
    oidcDiscoveryURLs: arr(url('Discovery endpoint.', 'https://issuer.example.com/.well-known/openid-configuration'), {
      description: 'OpenID Connect discovery endpoints (-auth.oidcDiscoveryEndpoints).',
      maxItems: 16,
    }),
  },
  { description: 'JWT verification. Without any key source the gateway checks structure and expiry only.', defaultEmpty: true },
);

export const rateLimitEntry = obj(
  {
    type: oneOf(['queries', 'active_series', 'new_series', 'rows_inserted'] as const, { description: 'Limited quantity.' }),
    value: int({ description: 'The limit.', minimum: 0, example: 1000 }),
    resolution: oneOf(['minute', 'hour'] as const, { description: 'Time window.', default: 'minute' }),
    accountID: int({ description: 'Tenant account; a global limit when both ids are absent.', minimum: 0, example: 1 }),
    projectID: int({ description: 'Tenant project.', minimum: 0, example: 0 }),
  },
  {
    description: 'One rate limit.',
    required: ['type', 'value'],
    rules: [{ rule: '!has(self.projectID) || has(self.accountID)', message: 'projectID needs accountID' }],
  },
);

export const gatewayRateLimit = obj(
  {
    enabled: bool({ description: 'Enforce the limits (-enable.rateLimit).', default: false }),
    limits: arr(rateLimitEntry, { description: 'Limits, rendered into the -ratelimit.config file.', maxItems: 1024 }),
    datasourceURL: url('Prometheus-compatible API holding the cluster metrics (-datasource.url).', 'http://tsdb-select.metrics:8481/select/0/prometheus'),
    refreshInterval: str({ description: 'How often usage is refreshed (-ratelimit.refreshInterval).', pattern: DURATION_PATTERN, default: '5s' }),
    extraLabels: arr(str({ description: 'name=value', pattern: '^[a-zA-Z_][a-zA-Z0-9_]*=.*$', maxLength: 1024, example: 'cluster=prod' }), {
      description: 'Filters added to usage queries (-ratelimit.extraLabels).',
      maxItems: 32,
    }),
  },
  {
    description: 'Rate limiting (cluster mode only).',
    defaultEmpty: true,
    // has(): the API server also checks the rule against the bare default ({}), before enabled is defaulted.
    rules: [{ rule: '!has(self.enabled) || !self.enabled || has(self.datasourceURL)', message: 'rate limiting needs datasourceURL' }],
  },
);

export const tsdbGatewaySpec = obj(
  {
    paused,
    eula: bool({ description: 'Accept the enterprise license terms (-eula); the gateway does not start without it.', default: false }),
    replicas: int({ description: 'Number of gateway Pods.', minimum: 0, default: 1 }),
    imagePullSecrets,
    ...workload,
    service: serviceSpec,
    podDisruptionBudget,
    target: gatewayTarget,
    auth: gatewayAuth,
    rateLimit: gatewayRateLimit,
  },
  {
    description: 'Desired state of a JWT gateway.',
    required: ['target'],
    rules: [
      { rule: 'self.eula', message: 'the gateway is an enterprise component: set eula: true to accept the license terms' },
      {
        rule: "!self.rateLimit.enabled || (has(self.target.ref) ? self.target.ref.kind == 'TSDBCluster' : (has(self.target.clusterMode) && self.target.clusterMode))",
        message: 'rate limiting works only in front of a cluster TSDB',
      },
    ],
  },
);

export const tsdbGatewayStatus = obj(
  {
    ...baseStatus,
    gateway: componentStatus,
    replicas: int({ description: 'Observed Pods (scale subresource).', minimum: 0 }),
    selector: str({ description: 'Label selector of the Pods (scale subresource).' }),
  },
  { description: 'Observed state of a gateway.' },
);

export type TSDBGatewaySpec = Static<typeof tsdbGatewaySpec>;
export type TSDBGatewayStatus = Static<typeof tsdbGatewayStatus>;
