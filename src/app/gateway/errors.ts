// The gateway's error catalog (codes in docs/ERRORS.md): every answer it gives itself instead of forwarding, with its status,
// the `reason` it is counted under in gateway_rejects_total and a plain-text body. Token problems
// all answer 401 "Unauthorized" (DECISIONS.md "Gateway"); their reason is only counted and logged.

import { defineErrors, type ErrorDef } from '../../lib/errors/index.ts';

/** GatewayError describes one kind of answer. */
export interface GatewayError extends ErrorDef {
  readonly status: number;
  readonly reason: string;
  readonly message: (detail: string) => string;
}

/** ERRORS maps each code to its answer. */
export const ERRORS = defineErrors({
  ERR_GATEWAY_UNAUTHORIZED: { status: 401, reason: 'unauthorized', message: () => 'Unauthorized' },
  ERR_GATEWAY_FORBIDDEN_MODE: { status: 403, reason: 'forbidden_mode', message: (d) => `forbidden: ${d}` },
  ERR_GATEWAY_UNSUPPORTED_PATH: { status: 404, reason: 'unsupported_path', message: (d) => `the gateway does not forward ${d}` },
  ERR_GATEWAY_BAD_REQUEST: { status: 400, reason: 'bad_request', message: (d) => `bad request: ${d}` },
  ERR_GATEWAY_UNSUPPORTED_MEDIA_TYPE: { status: 415, reason: 'unsupported_media_type', message: (d) => `unsupported request body: ${d}` },
  ERR_GATEWAY_RATE_LIMITED: { status: 429, reason: 'rate_limited', message: (type) => `request was rate limited by: "${type} limit reached"` },
  ERR_GATEWAY_BACKEND: { status: 502, reason: 'backend_error', message: (d) => d },
} satisfies Record<string, GatewayError>);

/** GatewayErrorCode is a key of ERRORS. */
export type GatewayErrorCode = keyof typeof ERRORS;
