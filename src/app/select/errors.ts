// The error catalog of the read API (DECISIONS.md "TSDB HTTP API"): each error has a stable code,
// the Prometheus errorType clients branch on, and its HTTP status.

/** ApiErrorKind is the closed set of read-API failures. */
export type ApiErrorKind = 'bad_data' | 'execution' | 'limit' | 'timeout' | 'canceled' | 'unavailable' | 'too_many_requests' | 'internal';

const STATUS: Readonly<Record<ApiErrorKind, number>> = {
  bad_data: 400,
  execution: 422,
  limit: 422,
  timeout: 503,
  canceled: 499,
  unavailable: 503,
  too_many_requests: 429,
  internal: 500,
};

const ERROR_TYPE: Readonly<Record<ApiErrorKind, string>> = {
  bad_data: 'bad_data',
  execution: 'execution',
  limit: 'execution',
  timeout: 'timeout',
  canceled: 'canceled',
  unavailable: 'unavailable',
  too_many_requests: 'unavailable',
  internal: 'internal',
};

/** ERROR_CODES documents each kind's stable code (ERR_SELECT_*). */
export const ERROR_CODES: Readonly<Record<ApiErrorKind, string>> = {
  bad_data: 'ERR_SELECT_BAD_DATA',
  execution: 'ERR_SELECT_EXECUTION',
  limit: 'ERR_SELECT_LIMIT_EXCEEDED',
  timeout: 'ERR_SELECT_TIMEOUT',
  canceled: 'ERR_SELECT_CANCELED',
  unavailable: 'ERR_SELECT_UNAVAILABLE',
  too_many_requests: 'ERR_SELECT_TOO_MANY_REQUESTS',
  internal: 'ERR_SELECT_INTERNAL',
};

/** ApiError is a read-API failure the reply helper turns into the Prometheus error envelope. */
export class ApiError extends Error {
  readonly kind: ApiErrorKind;
  constructor(kind: ApiErrorKind, message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = 'ApiError';
    this.kind = kind;
  }

  get status(): number {
    return STATUS[this.kind];
  }

  get errorType(): string {
    return ERROR_TYPE[this.kind];
  }

  get code(): string {
    return ERROR_CODES[this.kind];
  }
}

/** badData is the common 400: a parameter that cannot be parsed, with the parameter named. */
export function badData(param: string, err: unknown): ApiError {
  const reason = err instanceof Error ? err.message : String(err);
  return new ApiError('bad_data', `invalid parameter "${param}": ${reason}`, { cause: err });
}
