// CorruptDataError lives with the byte reader that throws it (lib/bytes); storage code names it from here.
export { CorruptDataError } from '../../bytes/errors.ts';
export { errorMessage } from '../../errors/index.ts';
