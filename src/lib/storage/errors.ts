/**
 * CorruptDataError reports bytes read back from disk (a part, an index file, a WAL record) that do
 * not decode. Decoders throw only this error for bad input, so callers can tell damaged data apart
 * from programming errors and name the file that holds it.
 */
export class CorruptDataError extends Error {
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = 'CorruptDataError';
  }
}

/** errorMessage extracts a message from anything thrown. */
export function errorMessage(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
