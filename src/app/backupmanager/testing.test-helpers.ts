// Helpers shared by the backup manager's unit tests.

import { link, mkdir, readdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { createRemoteFs, type RemoteFs } from '../../lib/backup/index.ts';
import { FlagSet } from '../../lib/flags/index.ts';
import { HttpServer } from '../../lib/httpserver/index.ts';
import { createLogger, type Logger } from '../../lib/logger/index.ts';
import { processRegistry } from '../../lib/metrics/index.ts';
import { createBackupManagerApi } from './api-service.ts';
import { BackupRunner } from './backup-runner.ts';
import { backupManagerRoutes } from './routes.ts';
import type { SnapshotApi } from './snapshot-client.ts';

/** CapturedLogger is a logger whose lines (default format, no timestamps) tests can read. */
export interface CapturedLogger {
  readonly logger: Logger;
  readonly lines: string[];
  /** messages returns the message column of every line. */
  messages(): string[];
  stop(): void;
}

/** captureLogger builds a logger writing into an array. */
export function captureLogger(): CapturedLogger {
  const lines: string[] = [];
  const { logger, stop } = createLogger({
    format: 'default', level: 'INFO', jsonFields: {}, timezone: 'UTC', disableTimestamps: true,
    errorsPerSecondLimit: 0, warnsPerSecondLimit: 0, write: (l) => lines.push(l),
  });
  return {
    logger,
    lines,
    messages: () => lines.map((l) => l.split('\t').slice(2).join('\t').trimEnd()),
    stop,
  };
}

/**
 * FakeSnapshots is a SnapshotApi that does what the storage's snapshot API does to the disk:
 * create hard-links every file of `live` into `<dataDir>/snapshots/<name>/`, delete removes it.
 */
export interface FakeSnapshots extends SnapshotApi {
  readonly created: string[];
  readonly deleted: string[];
  /** failCreate, when set, makes the next creates fail with it. */
  failCreate: Error | undefined;
}

/** fakeSnapshots returns a FakeSnapshots over the live directory `live`. */
export function fakeSnapshots(dataDir: string, live: string): FakeSnapshots {
  let n = 0;
  const api: FakeSnapshots = {
    created: [],
    deleted: [],
    failCreate: undefined,
    async create() {
      if (api.failCreate) throw api.failCreate;
      const name = `20240305070000-${String(++n).padStart(16, '0')}`;
      await linkTree(live, join(dataDir, 'snapshots', name));
      api.created.push(name);
      return name;
    },
    async delete(name) {
      await rm(join(dataDir, 'snapshots', name), { recursive: true, force: true });
      api.deleted.push(name);
    },
  };
  return api;
}

/** linkTree hard-links every regular file under `src` to the same path under `dst`. */
export async function linkTree(src: string, dst: string): Promise<void> {
  await mkdir(dst, { recursive: true });
  for (const e of await readdir(src, { withFileTypes: true })) {
    if (e.isDirectory()) await linkTree(join(src, e.name), join(dst, e.name));
    else if (e.isFile()) await link(join(src, e.name), join(dst, e.name));
  }
}

/** metricValue reads one series of the process registry (0 when absent). */
export async function metricValue(name: string, labels: Readonly<Record<string, string>> = {}): Promise<number> {
  const m = processRegistry.getSingleMetric(name);
  if (m === undefined) return 0;
  const { values } = await m.get();
  const v = values.find((x) => Object.entries(labels).every(([k, want]) => String((x.labels as Record<string, unknown>)[k]) === want));
  return v?.value ?? 0;
}

/** ApiServerFixture is the backup manager API on a real HttpServer at 127.0.0.1. */
export interface ApiServerFixture {
  readonly server: HttpServer;
  readonly base: string;
  readonly runner: BackupRunner;
  stop(): Promise<void>;
}

/**
 * startApiServer serves the API over `dst` and `dataDir` (snapshots from `live`) on a real
 * HttpServer with the runtime's auth; `basicAuth` enables -httpAuth.*.
 */
export async function startApiServer(o: {
  dst: RemoteFs;
  dataDir: string;
  live: string;
  logger: Logger;
  basicAuth?: { username: string; password: string };
  snapshots?: SnapshotApi;
}): Promise<ApiServerFixture> {
  const runner = new BackupRunner({
    dst: o.dst, snapshots: o.snapshots ?? fakeSnapshots(o.dataDir, o.live), storageDataPath: o.dataDir,
    enabled: { hourly: true, daily: true, weekly: true, monthly: true }, keepLast: {}, concurrency: 2, maxBytesPerSecond: 0, now: Date.now, logger: o.logger,
  });
  const api = createBackupManagerApi({ dst: o.dst, storageDataPath: o.dataDir, runner, openRemote: (url) => createRemoteFs(url), logger: o.logger });
  const server = new HttpServer({
    listenAddr: '127.0.0.1:0', enableTCP6: false, pathPrefix: '', tls: undefined, connTimeoutMs: 0, idleConnTimeoutMs: 60_000,
    maxGracefulShutdownMs: 2000, disableResponseCompression: false, useProxyProtocol: false, basicAuth: o.basicAuth,
    metricsAuthKey: '', flagsAuthKey: '', pprofAuthKey: '', flagSet: new FlagSet(), logger: o.logger, metricsPrefix: 'backupmanager',
  });
  server.register(backupManagerRoutes(api, o.logger));
  await server.listen();
  return {
    server, runner, base: `http://127.0.0.1:${server.port}`,
    stop: async () => {
      await runner.stop();
      await server.close();
    },
  };
}
