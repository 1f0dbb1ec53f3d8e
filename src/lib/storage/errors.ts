import { CodedError, defineErrors } from '../errors/index.ts';

export { errorMessage } from '../errors/index.ts';

/** CODES is the storage engine's part of the error catalog (docs/ERRORS.md). */
const CODES = defineErrors({ ERR_STORAGE_CORRUPT_DATA: {} });

/**
 * CorruptDataError reports bytes read back from disk (a part, an index file, a WAL record) that do
 * not decode. Decoders throw only this error for bad input, so callers can tell damaged data apart
 * from programming errors and name the file that holds it.
 */
export class CorruptDataError extends CodedError {
  constructor(message: string, options?: ErrorOptions) {
    super(CODES.ERR_STORAGE_CORRUPT_DATA, message, options);
  }
}
