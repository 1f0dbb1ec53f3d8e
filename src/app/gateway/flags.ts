// The gateway's flags (SPEC "Gateway flags"), declared beside the one function that reads them.
// Strata adds -logInvalidAuthTokens (DECISIONS.md names it), -responseTimeout and the two key-set
// refresh intervals; everything else is the spec's.
import { arrayFlag, boolFlag, durationFlag, intFlag, stringFlag } from '../../lib/flags/index.ts';
import type { LabelPair } from './claims.ts';
import { type DatasourceAuth, type DatasourceOptions, parseDatasourceHeaders, type Secret } from './datasource.ts';
import { parseTarget, type Target } from './proxy.ts';
import { parseExtraLabels } from './usage-queries.ts';

const enableAuth = boolFlag('enable.auth', false, 'Whether to check JWTs (SPEC A1): the token decides the tenant (-clusterMode), forced label filters and read/write access. Without it every request acts as a token with empty claims (tenant 0:0, full access)');
const enableRateLimit = boolFlag('enable.rateLimit', false, 'Whether to enforce the limits of -ratelimit.config, measured from -datasource.url; cluster mode only');
const clusterMode = boolFlag('clusterMode', false, 'Whether -read.url and -write.url are cluster nodes: reads go to <read.url>/select/<accountID>:<projectID>/prometheus/..., writes to <write.url>/insert/<accountID>:<projectID>/<format>/...');
const readUrl = stringFlag('read.url', '', 'Where reads go: a single-node TSDB, or a select node with -clusterMode');
const writeUrl = stringFlag('write.url', '', 'Where writes go: a single-node TSDB, or an insert node with -clusterMode');
const authHttpHeader = stringFlag('auth.httpHeader', 'Authorization', 'Request header holding the token, as "Bearer <token>" (or the bare token); it is not forwarded');
const publicKeyFiles = arrayFlag('auth.publicKeyFiles', 'Files holding one PEM public key each (RSA or EC) to verify token signatures with; may be combined with the other key flags, each key counts');
const publicKeys = arrayFlag('auth.publicKeys', 'PEM public keys given inline (newlines may be written as \\n); may be combined with the other key flags, each key counts');
const jwksEndpoints = arrayFlag('auth.jwksEndpoints', 'JWK Set URLs to fetch verification keys from; refreshed every -auth.jwksRefreshInterval and on a token with an unknown kid');
const oidcDiscoveryEndpoints = arrayFlag('auth.oidcDiscoveryEndpoints', 'OpenID Connect discovery document URLs (…/.well-known/openid-configuration); keys are fetched from their jwks_uri like -auth.jwksEndpoints');
const jwksRefreshInterval = durationFlag('auth.jwksRefreshInterval', '5m', 'How often keys are re-fetched from -auth.jwksEndpoints and -auth.oidcDiscoveryEndpoints');
const jwksMinRefreshInterval = durationFlag('auth.jwksMinRefreshInterval', '10s', 'Least time between two fetches of one key endpoint: tokens with an unknown kid fetch no more often; also the retry interval while an endpoint fails');
const logInvalidAuthTokens = boolFlag('logInvalidAuthTokens', false, 'Whether to log why a token was rejected (tokens themselves are never logged; rejections are always counted in gateway_auth_rejects_total)');
const responseTimeout = durationFlag('responseTimeout', '5m0s', 'Timeout for the response headers of -read.url / -write.url and for each pause between response body chunks');
const ratelimitConfig = stringFlag('ratelimit.config', '', 'Path or http(s) URL of the rate limit config (YAML, "limits" list); re-read on SIGHUP and every -ratelimit.configCheckInterval');
const ratelimitConfigCheckInterval = durationFlag('ratelimit.configCheckInterval', '0s', 'How often to re-read -ratelimit.config; 0 disables (SIGHUP still works)');
const ratelimitExtraLabels = arrayFlag('ratelimit.extraLabels', 'Label filters name=value added to every usage query sent to -datasource.url');
const ratelimitRefreshInterval = durationFlag('ratelimit.refreshInterval', '5s', 'How often limit usage is refreshed from -datasource.url');
const dsUrl = stringFlag('datasource.url', '', 'Prometheus-compatible API (single node, or a select node under /select/<tenant>/prometheus) holding the cluster\'s own metrics, for -enable.rateLimit');
const dsAppendTypePrefix = boolFlag('datasource.appendTypePrefix', false, 'Whether to add the query type prefix (/prometheus) to -datasource.url');
const dsBasicUser = stringFlag('datasource.basicAuth.username', '', 'Basic auth username toward -datasource.url');
const dsBasicPassword = stringFlag('datasource.basicAuth.password', '', 'Basic auth password toward -datasource.url', { secret: true });
const dsBasicPasswordFile = stringFlag('datasource.basicAuth.passwordFile', '', 'File with the Basic auth password toward -datasource.url; re-read on every query');
const dsBearerToken = stringFlag('datasource.bearerToken', '', 'Bearer token toward -datasource.url', { secret: true });
const dsBearerTokenFile = stringFlag('datasource.bearerTokenFile', '', 'File with the bearer token toward -datasource.url; re-read on every query');
const dsDisableKeepAlive = boolFlag('datasource.disableKeepAlive', false, 'Whether to close the connection to -datasource.url after each query');
const dsHeaders = stringFlag('datasource.headers', '', 'Extra headers sent to -datasource.url, as "h1:v1^^h2:v2"');
const dsLookback = durationFlag('datasource.lookback', '0s', 'Usage queries are evaluated this long before now (the `time` param)');
const dsMaxIdleConnections = intFlag('datasource.maxIdleConnections', 100, 'Connections kept to -datasource.url');
const dsOauth2ClientID = stringFlag('datasource.oauth2.clientID', '', 'OAuth2 client id (client credentials grant) toward -datasource.url');
const dsOauth2ClientSecret = stringFlag('datasource.oauth2.clientSecret', '', 'OAuth2 client secret', { secret: true });
const dsOauth2ClientSecretFile = stringFlag('datasource.oauth2.clientSecretFile', '', 'File with the OAuth2 client secret; re-read on every token request');
const dsOauth2TokenUrl = stringFlag('datasource.oauth2.tokenUrl', '', 'OAuth2 token endpoint');
const dsOauth2Scopes = stringFlag('datasource.oauth2.scopes', '', 'OAuth2 scopes separated by ";"');
const dsQueryStep = durationFlag('datasource.queryStep', '5m0s', 'The `step` param of usage queries; 0 uses -ratelimit.refreshInterval');
const dsQueryTimeAlignment = boolFlag('datasource.queryTimeAlignment', true, 'Whether the `time` param is aligned to -ratelimit.refreshInterval');
const dsRoundDigits = intFlag('datasource.roundDigits', 0, 'Adds a `round_digits` param to usage queries when above 0');
const dsShowURL = boolFlag('datasource.showURL', false, 'Whether to show -datasource.url in logs and errors (hidden by default: it may hold credentials)');
const dsTlsCAFile = stringFlag('datasource.tlsCAFile', '', 'CA file to verify -datasource.url with');
const dsTlsCertFile = stringFlag('datasource.tlsCertFile', '', 'Client certificate file toward -datasource.url');
const dsTlsKeyFile = stringFlag('datasource.tlsKeyFile', '', 'Client key file toward -datasource.url');
const dsTlsServerName = stringFlag('datasource.tlsServerName', '', 'Server name to verify the certificate of -datasource.url against');
const dsTlsInsecureSkipVerify = boolFlag('datasource.tlsInsecureSkipVerify', false, 'Whether to skip verifying the certificate of -datasource.url');
const disablePathAppend = boolFlag('remoteRead.disablePathAppend', false, 'Whether to use -datasource.url as is, without appending /api/v1/query');

/** RateLimitFlags are the rate limiter's settings, present with -enable.rateLimit. */
export interface RateLimitFlags {
  readonly configLocation: string;
  readonly configCheckIntervalMs: number;
  readonly extraLabels: readonly LabelPair[];
  readonly refreshIntervalMs: number;
  /** datasource lacks only the clock. */
  readonly datasource: Omit<DatasourceOptions, 'now'>;
}

/** GatewayFlags are the gateway's flag values, checked. */
export interface GatewayFlags {
  readonly enableAuth: boolean;
  readonly clusterMode: boolean;
  readonly read: Target | undefined;
  readonly write: Target | undefined;
  /** authHeader is -auth.httpHeader in lower case. */
  readonly authHeader: string;
  readonly publicKeyFiles: readonly string[];
  readonly publicKeys: readonly string[];
  readonly jwksEndpoints: readonly string[];
  readonly oidcDiscoveryEndpoints: readonly string[];
  readonly jwksRefreshIntervalMs: number;
  readonly jwksMinRefreshIntervalMs: number;
  readonly logInvalidAuthTokens: boolean;
  readonly responseTimeoutMs: number;
  readonly rateLimit: RateLimitFlags | undefined;
}

/** gatewayFlagsFromFlags reads and checks the flags; throws Error naming the flag at fault. */
export function gatewayFlagsFromFlags(): GatewayFlags {
  if (readUrl.value === '' && writeUrl.value === '') throw new Error('set -read.url and/or -write.url: the gateway has nowhere to forward requests');
  if (!/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/.test(authHttpHeader.value)) throw new Error(`-auth.httpHeader=${JSON.stringify(authHttpHeader.value)} is not a header name`);
  for (const u of [...jwksEndpoints.value, ...oidcDiscoveryEndpoints.value]) {
    if (!/^https?:\/\/[^/]/i.test(u)) throw new Error(`key endpoint ${JSON.stringify(u)} of -auth.jwksEndpoints / -auth.oidcDiscoveryEndpoints must be an http(s) URL`);
  }
  if (jwksRefreshInterval.value <= 0 || jwksMinRefreshInterval.value <= 0) throw new Error('-auth.jwksRefreshInterval and -auth.jwksMinRefreshInterval must be above 0');
  return {
    enableAuth: enableAuth.value,
    clusterMode: clusterMode.value,
    read: readUrl.value === '' ? undefined : parseTarget('read.url', readUrl.value),
    write: writeUrl.value === '' ? undefined : parseTarget('write.url', writeUrl.value),
    authHeader: authHttpHeader.value.toLowerCase(),
    publicKeyFiles: publicKeyFiles.value,
    publicKeys: publicKeys.value,
    jwksEndpoints: jwksEndpoints.value,
    oidcDiscoveryEndpoints: oidcDiscoveryEndpoints.value,
    jwksRefreshIntervalMs: jwksRefreshInterval.value,
    jwksMinRefreshIntervalMs: jwksMinRefreshInterval.value,
    logInvalidAuthTokens: logInvalidAuthTokens.value,
    responseTimeoutMs: responseTimeout.value,
    rateLimit: enableRateLimit.value ? rateLimitFlags() : undefined,
  };
}

function rateLimitFlags(): RateLimitFlags {
  // SPEC A2 rule 4: only the cluster version of the TSDB can be rate-limited.
  if (!clusterMode.value) throw new Error('-enable.rateLimit needs -clusterMode: only a cluster TSDB exports the per-tenant statistics limits are measured from');
  if (ratelimitConfig.value === '') throw new Error('-enable.rateLimit needs -ratelimit.config');
  if (dsUrl.value === '') throw new Error('-enable.rateLimit needs -datasource.url');
  if (!/^https?:\/\/[^/]/i.test(dsUrl.value)) throw new Error(`-datasource.url=${JSON.stringify(dsUrl.value)} must be an http(s) URL`);
  if (ratelimitRefreshInterval.value <= 0) throw new Error('-ratelimit.refreshInterval must be above 0');
  if (dsMaxIdleConnections.value < 1) throw new Error('-datasource.maxIdleConnections must be at least 1');
  return {
    configLocation: ratelimitConfig.value,
    configCheckIntervalMs: ratelimitConfigCheckInterval.value,
    extraLabels: parseExtraLabels(ratelimitExtraLabels.value),
    refreshIntervalMs: ratelimitRefreshInterval.value,
    datasource: {
      url: dsUrl.value,
      appendTypePrefix: dsAppendTypePrefix.value,
      disablePathAppend: disablePathAppend.value,
      auth: datasourceAuth(),
      headers: parseDatasourceHeaders(dsHeaders.value),
      lookbackMs: dsLookback.value,
      queryStepMs: dsQueryStep.value,
      queryTimeAlignment: dsQueryTimeAlignment.value,
      roundDigits: dsRoundDigits.value > 0 ? dsRoundDigits.value : undefined,
      evaluationIntervalMs: ratelimitRefreshInterval.value,
      tls: {
        caFile: dsTlsCAFile.value, certFile: dsTlsCertFile.value, keyFile: dsTlsKeyFile.value, serverName: dsTlsServerName.value,
        insecureSkipVerify: dsTlsInsecureSkipVerify.value,
      },
      disableKeepAlive: dsDisableKeepAlive.value,
      maxIdleConnections: dsMaxIdleConnections.value,
      timeoutMs: 30_000,
      showURL: dsShowURL.value,
    },
  };
}

function secret(valueFlag: string, value: string, fileFlag: string, file: string): Secret | undefined {
  if (value !== '' && file !== '') throw new Error(`set -${valueFlag} or -${fileFlag}, not both`);
  if (value !== '') return { value };
  if (file !== '') return { file };
  return undefined;
}

function datasourceAuth(): DatasourceAuth {
  const password = secret('datasource.basicAuth.password', dsBasicPassword.value, 'datasource.basicAuth.passwordFile', dsBasicPasswordFile.value);
  const token = secret('datasource.bearerToken', dsBearerToken.value, 'datasource.bearerTokenFile', dsBearerTokenFile.value);
  const clientSecret = secret('datasource.oauth2.clientSecret', dsOauth2ClientSecret.value, 'datasource.oauth2.clientSecretFile', dsOauth2ClientSecretFile.value);
  const basic = dsBasicUser.value !== '' || password !== undefined;
  const oauth2 = dsOauth2ClientID.value !== '' || dsOauth2TokenUrl.value !== '' || clientSecret !== undefined;
  if ([basic, token !== undefined, oauth2].filter(Boolean).length > 1) throw new Error('set only one of -datasource.basicAuth.*, -datasource.bearerToken* and -datasource.oauth2.*');
  if (basic) return { kind: 'basic', username: dsBasicUser.value, password: password ?? { value: '' } };
  if (token !== undefined) return { kind: 'bearer', token };
  if (oauth2) {
    if (dsOauth2ClientID.value === '' || dsOauth2TokenUrl.value === '' || clientSecret === undefined) {
      throw new Error('-datasource.oauth2.* needs -datasource.oauth2.clientID, -datasource.oauth2.tokenUrl and a client secret (-datasource.oauth2.clientSecret or -datasource.oauth2.clientSecretFile)');
    }
    const scopes = dsOauth2Scopes.value.split(';').map((s) => s.trim()).filter((s) => s !== '');
    return { kind: 'oauth2', clientID: dsOauth2ClientID.value, clientSecret, tokenUrl: dsOauth2TokenUrl.value, scopes };
  }
  return { kind: 'none' };
}
