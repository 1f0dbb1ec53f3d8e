// The auth proxy's error catalog (codes in docs/ERRORS.md): every rejection it answers itself, with its status, the
// `reason` label it counts under in authproxy_http_request_errors_total, and a plain-text body.

import { defineErrors, type ErrorDef } from '../../lib/errors/index.ts';

/** ProxyError describes one kind of rejection. */
export interface ProxyError extends ErrorDef {
  readonly status: number;
  /** reason labels authproxy_http_request_errors_total; undefined: counted elsewhere (429s). */
  readonly reason: string | undefined;
  readonly headers?: Readonly<Record<string, string>>;
  readonly message: (detail: string) => string;
}

/** ERRORS maps each code to its response. */
export const ERRORS = defineErrors({
  ERR_AUTHPROXY_MISSING_AUTH: {
    status: 401, reason: 'missing_auth_token', headers: { 'www-authenticate': 'Basic realm="Restricted"' },
    message: () => 'missing "Authorization" request header: send credentials (Basic, Bearer or Token)',
  },
  ERR_AUTHPROXY_INVALID_AUTH: { status: 401, reason: undefined, message: () => 'Unauthorized' },
  ERR_AUTHPROXY_IP_DENIED: { status: 403, reason: 'ip_denied', message: (ip) => `access from ${ip} is denied by ip_filters` },
  ERR_AUTHPROXY_MISSING_ROUTE: { status: 400, reason: 'missing_route', message: (url) => `missing route for ${JSON.stringify(url)}` },
  ERR_AUTHPROXY_BAD_REQUEST: { status: 400, reason: 'bad_request', message: (why) => `bad request: ${why}` },
  ERR_AUTHPROXY_TOO_MANY_REQUESTS: {
    status: 429, reason: undefined, headers: { 'retry-after': '10' },
    message: (limit) => `too many concurrent requests: ${limit} was reached and no slot freed within -maxQueueDuration; retry later`,
  },
  ERR_AUTHPROXY_NO_CONFIG: { status: 503, reason: 'no_config', message: () => 'the auth config is not loaded yet' },
} satisfies Record<string, ProxyError>);

/** ProxyErrorCode is a key of ERRORS. */
export type ProxyErrorCode = keyof typeof ERRORS;
