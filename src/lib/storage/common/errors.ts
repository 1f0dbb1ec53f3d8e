// CorruptDataError lives with the byte reader that throws it (lib/bytes); storage code names it from here.
export { CorruptDataError } from '../../bytes/errors.ts';

/** errorMessage extracts a message from anything thrown. */
export function errorMessage(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
