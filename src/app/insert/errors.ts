import { common } from '../../lib/protoparser/index.ts';
import { LimitExceededError, NodeUnavailableError } from '../../lib/storageapi/index.ts';

/** InsertErrorCode is the stable code of each ingestion failure (ERR_INSERT_*). */
export type InsertErrorCode = 'ERR_INSERT_BAD_DATA' | 'ERR_INSERT_BAD_ARG' | 'ERR_INSERT_TOO_LARGE' | 'ERR_INSERT_ENCODING' | 'ERR_INSERT_LIMIT' | 'ERR_INSERT_UNAVAILABLE' | 'ERR_INSERT_INTERNAL';

const STATUS: Readonly<Record<InsertErrorCode, number>> = {
  ERR_INSERT_BAD_DATA: 400,
  ERR_INSERT_BAD_ARG: 400,
  ERR_INSERT_TOO_LARGE: 413,
  ERR_INSERT_ENCODING: 415,
  ERR_INSERT_LIMIT: 400,
  // cluster: no storage node took the rows; the client should retry later
  ERR_INSERT_UNAVAILABLE: 503,
  ERR_INSERT_INTERNAL: 500,
};

/** InsertError is an ingestion failure with its HTTP status; the message is the plain-text body. */
export class InsertError extends Error {
  readonly code: InsertErrorCode;
  constructor(code: InsertErrorCode, message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = 'InsertError';
    this.code = code;
  }

  get statusCode(): number {
    return STATUS[this.code];
  }
}

/** classifyInsertError maps what parsers and storage throw onto the catalog; unknown errors are 500. */
export function classifyInsertError(err: unknown): InsertError {
  if (err instanceof InsertError) return err;
  const e = err as Error;
  if (err instanceof common.BodyTooLargeError) return new InsertError('ERR_INSERT_TOO_LARGE', `${e.message}; see -maxInsertRequestSize`, { cause: err });
  if (err instanceof common.UnsupportedEncodingError) return new InsertError('ERR_INSERT_ENCODING', e.message, { cause: err });
  if (err instanceof common.InvalidArgumentError) return new InsertError('ERR_INSERT_BAD_ARG', e.message, { cause: err });
  if (err instanceof common.ParseError) return new InsertError('ERR_INSERT_BAD_DATA', e.message, { cause: err });
  if (err instanceof LimitExceededError) {
    // Storage names flags with their dash ("-maxLabelsPerTimeseries"); accept both spellings.
    const flag = `-${err.flag}`;
    return new InsertError('ERR_INSERT_LIMIT', e.message.includes(flag) ? e.message : `${e.message} (see ${flag})`, { cause: err });
  }
  if (err instanceof NodeUnavailableError) return new InsertError('ERR_INSERT_UNAVAILABLE', `cannot insert rows: ${e.message}`, { cause: err });
  return new InsertError('ERR_INSERT_INTERNAL', `cannot insert rows: ${e?.message ?? String(err)}`, { cause: err });
}
