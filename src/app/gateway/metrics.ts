import { counter, gauge, summary } from '../../lib/metrics/index.ts';

// The gateway's metrics (DECISIONS.md "Naming": `gateway_*`). Tenant labels are accountID and
// projectID, as in the TSDB's per-tenant statistics.

/** requests counts requests the proxy handler received (everything but the built-in routes). */
export const requests = counter('gateway_requests_total', 'Requests received for proxying (all but /health, /metrics, /flags, /debug/pprof)');
/** forwarded counts requests sent to the read or write target. */
export const forwarded = counter('gateway_forwarded_requests_total', 'Requests forwarded to -read.url (kind="read") or -write.url (kind="write")', ['kind']);
/** rejects counts requests answered by the gateway itself, by reason. */
export const rejects = counter('gateway_rejects_total', 'Requests not forwarded, by reason (auth reasons as in gateway_auth_rejects_total, forbidden_mode, unsupported_path, bad_request, unsupported_media_type, rate_limited)', ['reason']);
/** authRejects counts 401s by what was wrong with the token (DECISIONS.md "Gateway"). */
export const authRejects = counter('gateway_auth_rejects_total', 'Requests answered 401 because of their token, by reason: missing_token, malformed_token, token_too_large, unsupported_alg, bad_signature, unknown_kid, expired, invalid_claims', ['reason']);
/** backendErrors counts forwarded requests that failed at network level or timed out. */
export const backendErrors = counter('gateway_backend_errors_total', 'Forwarded requests the target did not answer (network error or timeout), by kind', ['kind']);
/** overhead observes the latency the gateway adds: from arrival until the request is handed to the target. */
export const overhead = summary('gateway_request_overhead_seconds', 'Time from a request\'s arrival until it was handed to the target: token check, limits and rewriting');
/** duration observes forwarded requests from arrival until the response ended. */
export const duration = summary('gateway_request_duration_seconds', 'Duration of forwarded requests, from arrival until the response ended', ['kind']);

/** tokenCache reports the verified-token cache. */
export const tokenCacheHits = counter('gateway_token_cache_hits_total', 'Requests whose token was found verified in the cache (no signature check)');
export const tokenCacheMisses = counter('gateway_token_cache_misses_total', 'Requests whose token had to be verified');

/** keysLoaded is the number of verification keys per source. */
export const keysLoaded = gauge('gateway_auth_keys', 'Verification keys in use, by source (a file, -auth.publicKeys, or an endpoint)', ['source']);
/** keyRefreshes counts key-set fetches by endpoint and result. */
export const keyRefreshes = counter('gateway_auth_key_refreshes_total', 'Fetches of -auth.jwksEndpoints / -auth.oidcDiscoveryEndpoints, by endpoint and result (ok, error)', ['endpoint', 'result']);

/** rateLimited counts 429s by the limit that was reached. */
export const rateLimited = counter('gateway_ratelimit_rejects_total', 'Requests answered 429 by the rate limiter, by limit type and window', ['type', 'resolution']);
/** usage is the last measured usage per tenant and quantity. */
export const usage = gauge('gateway_ratelimit_usage', 'Last measured usage per tenant of each limited quantity (resolution="" for active_series)', ['accountID', 'projectID', 'type', 'resolution']);
/** limits are the configured limits (accountID="" for global ones). */
export const limits = gauge('gateway_ratelimit_limit', 'Configured limits; accountID and projectID are empty for global limits', ['accountID', 'projectID', 'type', 'resolution']);
/** datasourceErrors counts failed usage queries (DECISIONS.md "Datasource unreachable"). */
export const datasourceErrors = counter('gateway_ratelimit_datasource_errors_total', 'Usage queries to -datasource.url that failed; the last known usage stays in effect');
/** datasourceRequests counts usage queries sent. */
export const datasourceRequests = counter('gateway_ratelimit_datasource_requests_total', 'Usage queries sent to -datasource.url');
/** usageAge is when usage was last refreshed successfully. */
export const usageTimestamp = gauge('gateway_ratelimit_usage_last_refresh_timestamp_seconds', 'Unix time of the last complete usage refresh from -datasource.url');

/** reload metrics of -ratelimit.config. */
export const reloadSuccessful = gauge('gateway_ratelimit_config_last_reload_successful', 'Whether the last load of -ratelimit.config succeeded (1) or failed (0, the previous config stays in use)');
export const reloadErrors = counter('gateway_ratelimit_config_last_reload_errors_total', 'Failed loads of -ratelimit.config');
export const reloadSuccessTimestamp = gauge('gateway_ratelimit_config_last_reload_success_timestamp_seconds', 'Unix time of the last successful load of -ratelimit.config');
