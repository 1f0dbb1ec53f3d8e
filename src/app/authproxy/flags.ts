import { boolFlag, durationFlag, enumFlag, intFlag, sizeFlag, stringFlag } from '../../lib/flags/index.ts';
import { BALANCING_POLICIES } from '../../lib/httpproxy/index.ts';

const authConfig = stringFlag('auth.config', '', 'Path or http(s) URL of the auth config (YAML: users, unauthorized_user, ip_filters); re-read on SIGHUP, on /-/reload and every -configCheckInterval', { required: true });
const configCheckInterval = durationFlag('configCheckInterval', '0s', 'How often to re-read -auth.config; 0 disables periodic re-reading (SIGHUP and /-/reload still work)');
const reloadAuthKey = stringFlag('reloadAuthKey', '', 'Auth key for /-/reload, passed as the authKey query arg; overrides -httpAuth.*', { secret: true });
const maxConcurrentRequests = intFlag('maxConcurrentRequests', 1000, 'Maximum concurrent proxied requests; more wait up to -maxQueueDuration, then get 429');
const maxConcurrentPerUserRequests = intFlag('maxConcurrentPerUserRequests', 300, 'Maximum concurrent requests per user unless the user sets max_concurrent_requests; more wait up to -maxQueueDuration, then get 429');
const maxIdleConnsPerBackend = intFlag('maxIdleConnsPerBackend', 100, 'Idle connections kept to each backend host (connections in use are bounded by -maxConcurrentRequests); idle ones close after 60s');
const failTimeout = durationFlag('failTimeout', '3s', 'How long a backend that failed at network level is skipped by load balancing');
const responseTimeout = durationFlag('responseTimeout', '5m0s', 'Timeout for the response headers of a backend and for each pause between response body chunks');
const logInvalidAuthTokens = boolFlag('logInvalidAuthTokens', false, 'Whether to log requests with unknown credentials (the credentials themselves are never logged)');
const maxQueueDuration = durationFlag('maxQueueDuration', '10s', 'How long a request may wait for a free concurrency slot (-maxConcurrentRequests, per-user limits) before it gets 429');
const maxRequestBodySizeToRetry = sizeFlag('maxRequestBodySizeToRetry', '16KiB', 'Request bodies up to this size are buffered so a failed request can be retried on another backend; larger ones are streamed and not retried');
const threads = intFlag('threads', 0, 'Threads serving -httpListenAddr, each with its own event loop, sharing the concurrency limits, backend state, metrics and config; 0 means one per CPU this process may use. Linux only: elsewhere always 1');
const loadBalancingPolicy = enumFlag('loadBalancingPolicy', 'least_loaded', BALANCING_POLICIES, 'How a url_prefix list is balanced: least_loaded spreads requests over the least-loaded backends round-robin; first_available sends them to the first healthy backend');

/** AuthProxyFlags are the auth proxy's own flag values. */
export interface AuthProxyFlags {
  readonly authConfig: string;
  readonly configCheckIntervalMs: number;
  readonly reloadAuthKey: string;
  readonly maxConcurrentRequests: number;
  readonly maxConcurrentPerUserRequests: number;
  readonly maxIdleConnsPerBackend: number;
  readonly failTimeoutMs: number;
  readonly responseTimeoutMs: number;
  readonly logInvalidAuthTokens: boolean;
  readonly maxQueueDurationMs: number;
  readonly maxRequestBodySizeToRetry: number;
  readonly loadBalancingPolicy: (typeof BALANCING_POLICIES)[number];
  /** threads is -threads as given (0: one per available CPU). */
  readonly threads: number;
}

/** authProxyFlagsFromFlags reads the flags; throws Error naming a flag whose value is out of range. */
export function authProxyFlagsFromFlags(): AuthProxyFlags {
  const positive = (name: string, v: number) => {
    if (v < 1) throw new Error(`-${name} must be at least 1, not ${v}`);
    return v;
  };
  if (threads.value < 0) throw new Error(`-threads must be 0 (one per CPU) or more, not ${threads.value}`);
  return {
    authConfig: authConfig.value,
    configCheckIntervalMs: configCheckInterval.value,
    reloadAuthKey: reloadAuthKey.value,
    maxConcurrentRequests: positive('maxConcurrentRequests', maxConcurrentRequests.value),
    maxConcurrentPerUserRequests: positive('maxConcurrentPerUserRequests', maxConcurrentPerUserRequests.value),
    maxIdleConnsPerBackend: positive('maxIdleConnsPerBackend', maxIdleConnsPerBackend.value),
    failTimeoutMs: failTimeout.value,
    responseTimeoutMs: responseTimeout.value,
    logInvalidAuthTokens: logInvalidAuthTokens.value,
    maxQueueDurationMs: maxQueueDuration.value,
    maxRequestBodySizeToRetry: maxRequestBodySizeToRetry.value,
    loadBalancingPolicy: loadBalancingPolicy.value,
    threads: threads.value,
  };
}
