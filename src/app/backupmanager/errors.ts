// The error catalog of the backup manager API (DECISIONS.md "Backup manager"; codes in
// docs/ERRORS.md): every failure has a stable code and an HTTP status, and is answered as JSON
// `{"error":"<message>"}`.

import { BackupNotFoundError, ParseError } from '../../lib/backup/index.ts';
import { CodedError, defineErrors, errorMessage } from '../../lib/errors/index.ts';

/** ERRORS is the backup manager API's part of the catalog. */
export const ERRORS = defineErrors({
  ERR_BACKUPMANAGER_BAD_REQUEST: { status: 400 },
  ERR_BACKUPMANAGER_NOT_FOUND: { status: 404 },
  // DECISIONS.md: a backup requested while one runs is a 400, not a 409.
  ERR_BACKUPMANAGER_BACKUP_IN_PROGRESS: { status: 400 },
  ERR_BACKUPMANAGER_BODY_TOO_LARGE: { status: 413 },
  ERR_BACKUPMANAGER_INTERNAL: { status: 500 },
});

const BY_KIND = {
  bad_request: ERRORS.ERR_BACKUPMANAGER_BAD_REQUEST,
  not_found: ERRORS.ERR_BACKUPMANAGER_NOT_FOUND,
  in_progress: ERRORS.ERR_BACKUPMANAGER_BACKUP_IN_PROGRESS,
  too_large: ERRORS.ERR_BACKUPMANAGER_BODY_TOO_LARGE,
  internal: ERRORS.ERR_BACKUPMANAGER_INTERNAL,
} as const;

/** ApiErrorKind is the closed set of backup manager API failures. */
export type ApiErrorKind = keyof typeof BY_KIND;

/** ApiError is a failure the routes answer with its status and `{"error": message}`. */
export class ApiError extends CodedError {
  readonly kind: ApiErrorKind;
  constructor(kind: ApiErrorKind, message: string, options?: ErrorOptions) {
    super(BY_KIND[kind], message, options);
    this.kind = kind;
  }
}

/**
 * toApiError maps any thrown value to an ApiError: the backup library's typed errors keep their
 * meaning (a bad name or URL is a 400, a missing or incomplete backup a 404); anything else
 * (the destination failing, a disk error) is a 500 with its message.
 */
export function toApiError(err: unknown): ApiError {
  if (err instanceof ApiError) return err;
  const message = errorMessage(err);
  if (err instanceof ParseError) return new ApiError('bad_request', message, { cause: err });
  if (err instanceof BackupNotFoundError) return new ApiError('not_found', message, { cause: err });
  return new ApiError('internal', message, { cause: err });
}
