/**
 * CorruptDataError reports bytes that do not decode: a part, an index file or a WAL record read
 * back from disk, or a storage RPC frame. Decoders throw only this error for bad input, so callers
 * can tell damaged data apart from programming errors and name the file or peer that sent it.
 * (ByteReader throws it unless the caller gives another error factory, as the wire parsers do.)
 */
export class CorruptDataError extends Error {
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = 'CorruptDataError';
  }
}
