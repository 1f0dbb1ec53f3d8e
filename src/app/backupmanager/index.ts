// Package backupmanager: scheduled incremental backups of the TSDB data through snapshots, the
// backup manager API, and the CLI (backup list|lock|unlock, restore [create|get|delete]).

export { initBackupManager, type BackupManager, type BackupManagerDeps } from './backup-manager.ts';
export { runCommandFromFlags } from './command.ts';
export { serveOptionsFromFlags, restoreCommandFlags, apiClientFlags, type ServeOptions, type RestoreCommandFlags, type ApiClientFlags } from './flags.ts';
export { runRestoreCommand, type RestoreCommandOptions } from './restore-command.ts';
export { runCli, type CliDeps } from './cli.ts';
export { ApiClient, type ApiClientOptions } from './api-client.ts';
