import { CodedError, defineErrors } from '../../lib/errors/index.ts';
import * as common from '../../lib/protoparser/common/index.ts';
import { LimitExceededError, NodeUnavailableError } from '../../lib/storageapi/index.ts';

/** ERRORS is the ingestion API's part of the error catalog (docs/ERRORS.md). */
export const ERRORS = defineErrors({
  ERR_INSERT_BAD_DATA: { status: 400 },
  ERR_INSERT_BAD_ARG: { status: 400 },
  ERR_INSERT_TOO_LARGE: { status: 413 },
  ERR_INSERT_ENCODING: { status: 415 },
  ERR_INSERT_LIMIT: { status: 400 },
  // cluster: no storage node took the rows; the client should retry later
  ERR_INSERT_UNAVAILABLE: { status: 503 },
  ERR_INSERT_INTERNAL: { status: 500 },
});

/** InsertErrorCode is the stable code of each ingestion failure (ERR_INSERT_*). */
export type InsertErrorCode = keyof typeof ERRORS;

/** InsertError is an ingestion failure with its HTTP status; the message is the plain-text body. */
export class InsertError extends CodedError<InsertErrorCode> {
  constructor(code: InsertErrorCode, message: string, options?: ErrorOptions) {
    super(ERRORS[code], message, options);
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
