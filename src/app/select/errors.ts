// The error catalog of the read API (DECISIONS.md "TSDB HTTP API"; codes in docs/ERRORS.md): each
// error has a stable code, the Prometheus errorType clients branch on, and its HTTP status.

import { CodedError, defineErrors, errorMessage } from '../../lib/errors/index.ts';

/** ERRORS is the read API's part of the catalog; errorType is the Prometheus envelope's field. */
export const ERRORS = defineErrors({
  ERR_SELECT_BAD_DATA: { status: 400, errorType: 'bad_data' },
  ERR_SELECT_EXECUTION: { status: 422, errorType: 'execution' },
  ERR_SELECT_LIMIT_EXCEEDED: { status: 422, errorType: 'execution' },
  ERR_SELECT_TIMEOUT: { status: 503, errorType: 'timeout' },
  ERR_SELECT_CANCELED: { status: 499, errorType: 'canceled' },
  ERR_SELECT_UNAVAILABLE: { status: 503, errorType: 'unavailable' },
  ERR_SELECT_TOO_MANY_REQUESTS: { status: 429, errorType: 'unavailable' },
  ERR_SELECT_INTERNAL: { status: 500, errorType: 'internal' },
});

const BY_KIND = {
  bad_data: ERRORS.ERR_SELECT_BAD_DATA,
  execution: ERRORS.ERR_SELECT_EXECUTION,
  limit: ERRORS.ERR_SELECT_LIMIT_EXCEEDED,
  timeout: ERRORS.ERR_SELECT_TIMEOUT,
  canceled: ERRORS.ERR_SELECT_CANCELED,
  unavailable: ERRORS.ERR_SELECT_UNAVAILABLE,
  too_many_requests: ERRORS.ERR_SELECT_TOO_MANY_REQUESTS,
  internal: ERRORS.ERR_SELECT_INTERNAL,
} as const;

/** ApiErrorKind is the closed set of read-API failures. */
export type ApiErrorKind = keyof typeof BY_KIND;

/** ApiError is a read-API failure the reply helper turns into the Prometheus error envelope. */
export class ApiError extends CodedError {
  readonly kind: ApiErrorKind;
  readonly errorType: string;
  constructor(kind: ApiErrorKind, message: string, options?: ErrorOptions) {
    const def = BY_KIND[kind];
    super(def, message, options);
    this.kind = kind;
    this.errorType = def.errorType;
  }
}

/** badData is the common 400: a parameter that cannot be parsed, with the parameter named. */
export function badData(param: string, err: unknown): ApiError {
  return new ApiError('bad_data', `invalid parameter "${param}": ${errorMessage(err)}`, { cause: err });
}
