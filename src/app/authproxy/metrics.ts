import { counter, gauge, summary } from '../../lib/metrics/index.ts';

// The auth proxy's metrics (SPEC B "Metrics it exports"). The `username` label is the user's
// `name` when set, otherwise `username` (a hash for bearer-token users: tokens never reach /metrics).

/** LimitSnapshot is what the concurrency gauges read at scrape time. */
export interface LimitSnapshot {
  readonly global: { readonly capacity: number; readonly current: number };
  readonly users: ReadonlyArray<{ readonly label: string; readonly capacity: number; readonly current: number }>;
  readonly unauthorized: { readonly capacity: number; readonly current: number } | undefined;
}

/** limitSources are the running proxies whose limits the gauges report (one per process in production). */
export const limitSources = new Set<() => LimitSnapshot>();

const snapshots = () => [...limitSources].map((s) => s());

gauge('authproxy_concurrent_requests_capacity', 'Limit on concurrent proxied requests (-maxConcurrentRequests)', [], (g) => {
  g.reset();
  for (const s of snapshots()) g.set(s.global.capacity);
});
gauge('authproxy_concurrent_requests_current', 'Proxied requests holding a global concurrency slot', [], (g) => {
  g.reset();
  for (const s of snapshots()) g.set(s.global.current);
});
gauge('authproxy_user_concurrent_requests_capacity', 'Per-user limit on concurrent requests (max_concurrent_requests or -maxConcurrentPerUserRequests)', ['username'], (g) => {
  g.reset();
  for (const s of snapshots()) for (const u of s.users) g.inc({ username: u.label }, u.capacity);
});
gauge('authproxy_user_concurrent_requests_current', 'Per-user requests holding a concurrency slot', ['username'], (g) => {
  g.reset();
  for (const s of snapshots()) for (const u of s.users) g.inc({ username: u.label }, u.current);
});
gauge('authproxy_unauthorized_user_concurrent_requests_capacity', 'Limit on concurrent requests of the unauthorized_user section', [], (g) => {
  g.reset();
  for (const s of snapshots()) if (s.unauthorized !== undefined) g.set(s.unauthorized.capacity);
});
gauge('authproxy_unauthorized_user_concurrent_requests_current', 'Requests of the unauthorized_user section holding a concurrency slot', [], (g) => {
  g.reset();
  for (const s of snapshots()) if (s.unauthorized !== undefined) g.set(s.unauthorized.current);
});

/** globalLimitReached counts 429s caused by -maxConcurrentRequests. */
export const globalLimitReached = counter('authproxy_concurrent_requests_limit_reached_total', 'Requests answered 429 because -maxConcurrentRequests was reached for -maxQueueDuration');
/** userLimitReached counts 429s caused by a user's own limit. */
export const userLimitReached = counter('authproxy_user_concurrent_requests_limit_reached_total', 'Requests answered 429 because the user\'s concurrency limit was reached for -maxQueueDuration', ['username']);
/** unauthorizedLimitReached counts 429s of the unauthorized_user section. */
export const unauthorizedLimitReached = counter('authproxy_unauthorized_user_concurrent_requests_limit_reached_total', 'Requests of unauthorized_user answered 429 because its concurrency limit was reached');

/** userRequests counts authenticated requests per user. */
export const userRequests = counter('authproxy_user_requests_total', 'Requests of each configured user', ['username']);
/** userDuration observes each user's request duration until the response is sent, in seconds. */
export const userDuration = summary('authproxy_user_request_duration_seconds', 'Duration of each configured user\'s requests, from arrival until the response ended', ['username']);
/** unauthorizedRequests counts requests served by the unauthorized_user section. */
export const unauthorizedRequests = counter('authproxy_unauthorized_user_requests_total', 'Requests served by the unauthorized_user section');
/** unauthorizedDuration observes unauthorized_user request durations in seconds. */
export const unauthorizedDuration = summary('authproxy_unauthorized_user_request_duration_seconds', 'Duration of requests served by the unauthorized_user section');

/** requestErrors counts rejected requests by reason (invalid_auth_token, missing_auth_token, missing_route, ip_denied, bad_request). */
export const requestErrors = counter('authproxy_http_request_errors_total', 'Requests rejected by the auth proxy, by reason', ['reason']);
/** userBackendErrors counts failed backend attempts (network errors, timeouts) per user. */
export const userBackendErrors = counter('authproxy_user_request_backend_errors_total', 'Backend attempts of a user\'s requests that failed at network level or timed out', ['username']);
/** unauthorizedBackendErrors is userBackendErrors for the unauthorized_user section. */
export const unauthorizedBackendErrors = counter('authproxy_unauthorized_user_request_backend_errors_total', 'Backend attempts of unauthorized_user requests that failed at network level or timed out');
/** backendErrors counts failed attempts per backend URL (as configured). */
export const backendErrors = counter('authproxy_backend_errors_total', 'Attempts to a backend that failed at network level or timed out; the backend is then skipped for -failTimeout', ['backend']);

/** reloadSuccessful is 1 when the last config load succeeded. */
export const reloadSuccessful = gauge('authproxy_config_last_reload_successful', 'Whether the last attempt to load -auth.config succeeded (1) or failed (0, the previous config stays in use)');
/** reloadErrors counts failed config loads. */
export const reloadErrors = counter('authproxy_config_last_reload_errors_total', 'Failed attempts to load -auth.config');
/** reloadSuccessTimestamp is when the config was last loaded successfully, in seconds since the epoch. */
export const reloadSuccessTimestamp = gauge('authproxy_config_last_reload_success_timestamp_seconds', 'Unix time of the last successful load of -auth.config');
