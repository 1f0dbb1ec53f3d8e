// Typed errors of the backup library. Callers branch on the class (the backupmanager app maps
// them to HTTP statuses); every message already names the object and the operation.

/** ParseError reports malformed input to a parser of this library (URLs, part names, markers). */
export class ParseError extends Error {
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = 'ParseError';
  }
}

/** RemoteNotFoundError reports that a remote file does not exist. `path` is relative to the RemoteFs root. */
export class RemoteNotFoundError extends Error {
  readonly path: string;
  constructor(message: string, path: string, options?: ErrorOptions) {
    super(message, options);
    this.name = 'RemoteNotFoundError';
    this.path = path;
  }
}

/** BackupNotFoundError reports that a named backup does not exist or is not complete. */
export class BackupNotFoundError extends Error {
  readonly backup: string;
  constructor(message: string, backup: string, options?: ErrorOptions) {
    super(message, options);
    this.name = 'BackupNotFoundError';
    this.backup = backup;
  }
}

/**
 * CorruptBackupError reports a backup whose parts do not cover its files exactly (missing,
 * overlapping or wrongly sized parts). Restore throws it before touching the data directory.
 */
export class CorruptBackupError extends Error {
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = 'CorruptBackupError';
  }
}

/** DataDirLockedError reports that a live storage process holds the data directory. */
export class DataDirLockedError extends Error {
  readonly dataDir: string;
  constructor(message: string, dataDir: string, options?: ErrorOptions) {
    super(message, options);
    this.name = 'DataDirLockedError';
    this.dataDir = dataDir;
  }
}

/** errorMessage returns the message of any thrown value. */
export function errorMessage(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
