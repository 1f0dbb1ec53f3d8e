import { CodedError, defineErrors } from '../errors/index.ts';

/** CODES is the byte reader's part of the error catalog (docs/ERRORS.md). */
const CODES = defineErrors({ ERR_STORAGE_CORRUPT_DATA: {} });

/**
 * CorruptDataError reports bytes that do not decode: a part, an index file or a WAL record read
 * back from disk, or a storage RPC frame. Decoders throw only this error for bad input, so callers
 * can tell damaged data apart from programming errors and name the file or peer that sent it.
 * (ByteReader throws it unless the caller gives another error factory, as the wire parsers do.)
 */
export class CorruptDataError extends CodedError {
  constructor(message: string, options?: ErrorOptions) {
    super(CODES.ERR_STORAGE_CORRUPT_DATA, message, options);
  }
}
