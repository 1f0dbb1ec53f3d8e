// The error catalog of the backup manager API (DECISIONS.md "Backup manager"): every failure
// has a stable code and an HTTP status, and is answered as JSON `{"error":"<message>"}`.

import { BackupNotFoundError, ParseError } from '../../lib/backup/index.ts';

/** ApiErrorKind is the closed set of backup manager API failures. */
export type ApiErrorKind = 'bad_request' | 'not_found' | 'in_progress' | 'too_large' | 'internal';

const STATUS: Readonly<Record<ApiErrorKind, number>> = {
  bad_request: 400,
  not_found: 404,
  // DECISIONS.md: a backup requested while one runs is a 400, not a 409.
  in_progress: 400,
  too_large: 413,
  internal: 500,
};

/** ERROR_CODES documents each kind's stable code (ERR_BACKUPMANAGER_*). */
export const ERROR_CODES: Readonly<Record<ApiErrorKind, string>> = {
  bad_request: 'ERR_BACKUPMANAGER_BAD_REQUEST',
  not_found: 'ERR_BACKUPMANAGER_NOT_FOUND',
  in_progress: 'ERR_BACKUPMANAGER_BACKUP_IN_PROGRESS',
  too_large: 'ERR_BACKUPMANAGER_BODY_TOO_LARGE',
  internal: 'ERR_BACKUPMANAGER_INTERNAL',
};

/** ApiError is a failure the routes answer with its status and `{"error": message}`. */
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

  get code(): string {
    return ERROR_CODES[this.kind];
  }
}

/**
 * toApiError maps any thrown value to an ApiError: the backup library's typed errors keep their
 * meaning (a bad name or URL is a 400, a missing or incomplete backup a 404); anything else
 * (the destination failing, a disk error) is a 500 with its message.
 */
export function toApiError(err: unknown): ApiError {
  if (err instanceof ApiError) return err;
  const message = err instanceof Error ? err.message : String(err);
  if (err instanceof ParseError) return new ApiError('bad_request', message, { cause: err });
  if (err instanceof BackupNotFoundError) return new ApiError('not_found', message, { cause: err });
  return new ApiError('internal', message, { cause: err });
}
