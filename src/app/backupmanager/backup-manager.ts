// The backup manager server: scheduled runs, the API routes, and their stop.

import type { FastifyPluginAsync } from 'fastify';
import { INTERVALS, type Delay, type Now, type RemoteFs } from '../../lib/backup/index.ts';
import { redactUrl, type Logger } from '../../lib/logger/index.ts';
import type { Component } from '../../lib/process/index.ts';
import { createBackupManagerApi, type BackupManagerApi } from './api-service.ts';
import { BackupRunner } from './backup-runner.ts';
import type { ServeOptions } from './flags.ts';
import { initBackupMetrics, type BackupType } from './metrics.ts';
import type { Terminal } from './progress-report.ts';
import { remoteOpener, type OpenRemote } from './remote-access.ts';
import { backupManagerRoutes } from './routes.ts';
import { Scheduler } from './scheduler.ts';
import { createSnapshotClient, type SnapshotApi } from './snapshot-client.ts';

/** BackupManagerDeps are the process's clock, timers and terminal; tests replace them. */
export interface BackupManagerDeps {
  readonly logger: Logger;
  readonly now?: Now;
  readonly delay?: Delay;
  /** terminal gets progress bars (process.stderr when it is a TTY). */
  readonly terminal?: Terminal | undefined;
  /** snapshots replaces the HTTP snapshot client. */
  readonly snapshots?: SnapshotApi;
  /** openRemote replaces opening locations with the object-store flags. */
  readonly openRemote?: OpenRemote;
  readonly progressLogIntervalMs?: number;
}

/** BackupManager is the started server component. */
export interface BackupManager extends Component {
  /** routes is the fastify plugin of the API; register it on the HTTP server. */
  readonly routes: FastifyPluginAsync;
  readonly api: BackupManagerApi;
  readonly runner: BackupRunner;
  /** startSchedule begins scheduled runs (call it once the API is listening). */
  startSchedule(): void;
}

/**
 * initBackupManager opens -dst (contacting nothing yet) and builds the runner, the schedule and
 * the API. stop() ends the schedule, aborts a run in flight (its snapshot is still deleted) and
 * closes the destination.
 */
export async function initBackupManager(o: ServeOptions, deps: BackupManagerDeps): Promise<BackupManager> {
  const logger = deps.logger;
  const now = deps.now ?? Date.now;
  const openRemote = deps.openRemote ?? remoteOpener(o.objectStore);
  const dst: RemoteFs = await openRemote(o.dst);
  const snapshots = deps.snapshots ?? createSnapshotClient({ createUrl: o.snapshotCreateUrl, deleteUrl: o.snapshotDeleteUrl });
  const runner = new BackupRunner({
    dst, snapshots, storageDataPath: o.storageDataPath, enabled: o.enabled, keepLast: o.keepLast, concurrency: o.concurrency,
    maxBytesPerSecond: o.maxBytesPerSecond, now, logger, terminal: deps.terminal, progressLogIntervalMs: deps.progressLogIntervalMs,
  });
  const scheduler = new Scheduler({ runner, enabled: o.enabled, runOnStart: o.runOnStart, now, logger, ...(deps.delay ? { delay: deps.delay } : {}) });
  const api = createBackupManagerApi({ dst, storageDataPath: o.storageDataPath, runner, openRemote, logger });
  const enabled = INTERVALS.filter((i) => o.enabled[i]);
  initBackupMetrics(['latest', ...enabled] as BackupType[]);
  logger.info(`backing up "${o.storageDataPath}" through snapshots of ${redactUrl(o.snapshotCreateUrl)} to ${dst.url}; ` +
    `intervals: ${enabled.length > 0 ? enabled.join(', ') : 'none (latest only)'}; retention: ${describeKeepLast(o)}`);
  return {
    name: 'backupmanager',
    routes: backupManagerRoutes(api, logger),
    api,
    runner,
    startSchedule: () => scheduler.start(),
    async stop() {
      // The schedule may be waiting for a run to end: end the schedule and the run together.
      const scheduleStopped = scheduler.stop();
      await runner.stop();
      await scheduleStopped;
      await dst.close();
    },
  };
}

function describeKeepLast(o: ServeOptions): string {
  const kept = INTERVALS.filter((i) => (o.keepLast[i] ?? -1) >= 0).map((i) => `last ${o.keepLast[i]} ${i}`);
  return kept.length > 0 ? kept.join(', ') : 'off';
}
