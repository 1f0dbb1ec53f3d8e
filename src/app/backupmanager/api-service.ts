// The operations behind the backup manager API (SPEC C, DECISIONS.md "Backup manager"), free of
// HTTP so that routes stay thin and tests can call them directly.

import {
  createRestoreMark, deleteRestoreMark, getBackup, getRestoreMark, listBackups, setBackupLocked, type BackupRecord, type RemoteFs,
  type RestoreMark,
} from '../../lib/backup/index.ts';
import type { Logger } from '../../lib/logger/index.ts';
import type { BackupRunner } from './backup-runner.ts';
import { ApiError } from './errors.ts';
import type { OpenRemote } from './remote-access.ts';

/** BackupManagerApi is what the HTTP routes call. Errors are library errors or ApiError. */
export interface BackupManagerApi {
  /** listBackups returns the complete backups of -dst, without `locked`. */
  listBackups(signal?: AbortSignal): Promise<BackupRecord[]>;
  /** getBackup returns one complete backup with `locked`. */
  getBackup(name: string, signal?: AbortSignal): Promise<BackupRecord>;
  /** setLocked locks or unlocks a complete backup and returns its record with `locked`. */
  setLocked(name: string, locked: boolean, signal?: AbortSignal): Promise<BackupRecord>;
  /** startBackup starts a run now in the background; ApiError 'in_progress' when one runs. */
  startBackup(): void;
  /** createRestoreMark marks a complete backup (name in -dst, or full URL) for restore. */
  createRestoreMark(backup: string, signal?: AbortSignal): Promise<RestoreMark>;
  /** getRestoreMark returns the mark, or undefined when there is none. */
  getRestoreMark(): Promise<RestoreMark | undefined>;
  /** deleteRestoreMark removes the mark; it returns whether one existed. */
  deleteRestoreMark(): Promise<boolean>;
}

/** ApiServiceOptions configure createBackupManagerApi. */
export interface ApiServiceOptions {
  readonly dst: RemoteFs;
  /** storageDataPath is where the restore mark lives (absolute). */
  readonly storageDataPath: string;
  readonly runner: BackupRunner;
  /** openRemote opens the full backup URL of a mark that points outside -dst. */
  readonly openRemote: OpenRemote;
  readonly logger: Logger;
}

/** createBackupManagerApi implements BackupManagerApi on -dst and the storage data path. */
export function createBackupManagerApi(o: ApiServiceOptions): BackupManagerApi {
  return {
    listBackups: (signal) => listBackups(o.dst, signal),
    getBackup: (name, signal) => getBackup(o.dst, checkName(name), signal),
    async setLocked(name, locked, signal) {
      const record = await setBackupLocked(o.dst, checkName(name), locked, signal);
      o.logger.info(`${locked ? 'locked' : 'unlocked'} backup "${name}"`);
      return record;
    },
    startBackup() {
      void o.runner.start('api');
    },
    async createRestoreMark(backup, signal) {
      const mark = await createRestoreMark({ dataDir: o.storageDataPath, backup, dst: o.dst, openRemote: o.openRemote, signal });
      o.logger.info(`marked ${mark.backup} for restore into "${o.storageDataPath}"; stop the storage and run "backupmanager restore" to restore it`);
      return mark;
    },
    getRestoreMark: () => getRestoreMark(o.storageDataPath),
    async deleteRestoreMark() {
      const existed = await deleteRestoreMark(o.storageDataPath);
      if (existed) o.logger.info(`deleted the restore mark in "${o.storageDataPath}"`);
      return existed;
    },
  };
}

function checkName(name: string): string {
  if (name === '') throw new ApiError('bad_request', 'missing backup name in the path, as /api/v1/backups/daily/2024-01-31');
  return name;
}
