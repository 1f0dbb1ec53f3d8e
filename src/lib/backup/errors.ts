// Typed errors of the backup library, coded in the error catalog (docs/CODES.md). Callers branch on
// the class (the backupmanager app maps them to HTTP statuses); every message already names the
// object and the operation.

import { CodedError, defineErrors } from '../errors/index.ts';

export { errorMessage } from '../errors/index.ts';

/** CODES is the backup library's part of the catalog. */
const CODES = defineErrors({
  ERR_BACKUP_PARSE: {},
  ERR_BACKUP_REMOTE_NOT_FOUND: {},
  ERR_BACKUP_NOT_FOUND: {},
  ERR_BACKUP_CORRUPT: {},
  ERR_BACKUP_DATA_DIR_LOCKED: {},
});

/** ParseError reports malformed input to a parser of this library (URLs, part names, markers). */
export class ParseError extends CodedError {
  constructor(message: string, options?: ErrorOptions) {
    super(CODES.ERR_BACKUP_PARSE, message, options);
  }
}

/** RemoteNotFoundError reports that a remote file does not exist. `path` is relative to the RemoteFs root. */
export class RemoteNotFoundError extends CodedError {
  readonly path: string;
  constructor(message: string, path: string, options?: ErrorOptions) {
    super(CODES.ERR_BACKUP_REMOTE_NOT_FOUND, message, options);
    this.path = path;
  }
}

/** BackupNotFoundError reports that a named backup does not exist or is not complete. */
export class BackupNotFoundError extends CodedError {
  readonly backup: string;
  constructor(message: string, backup: string, options?: ErrorOptions) {
    super(CODES.ERR_BACKUP_NOT_FOUND, message, options);
    this.backup = backup;
  }
}

/**
 * CorruptBackupError reports a backup whose parts do not cover its files exactly (missing,
 * overlapping or wrongly sized parts). Restore throws it before touching the data directory.
 */
export class CorruptBackupError extends CodedError {
  constructor(message: string, options?: ErrorOptions) {
    super(CODES.ERR_BACKUP_CORRUPT, message, options);
  }
}

/** DataDirLockedError reports that a live storage process holds the data directory. */
export class DataDirLockedError extends CodedError {
  readonly dataDir: string;
  constructor(message: string, dataDir: string, options?: ErrorOptions) {
    super(CODES.ERR_BACKUP_DATA_DIR_LOCKED, message, options);
    this.dataDir = dataDir;
  }
}
