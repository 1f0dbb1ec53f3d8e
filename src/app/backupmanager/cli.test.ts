import { access, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { backup, copyBackup, createRemoteFs, FsRemote, RESTORE_MARK } from '../../lib/backup/index.ts';
import { makeTree, readTree, tempDir, type TempDir } from '../../lib/backup/testing/tree.ts';
import { ApiClient } from './api-client.ts';
import { runCli, type CliDeps } from './cli.ts';
import { runRestoreCommand } from './restore-command.ts';
import { captureLogger, startApiServer, type ApiServerFixture, type CapturedLogger } from './testing.test-helpers.ts';

let tmp: TempDir;
let dst: FsRemote;
let dataDir: string;
let live: string;
let log: CapturedLogger;
let fx: ApiServerFixture;
const creds = { username: 'admin', password: 'p@ss:w' };

beforeEach(async () => {
  tmp = await tempDir('bm-cli');
  dst = new FsRemote({ root: join(tmp.path, 'dst'), fsync: false });
  dataDir = join(tmp.path, 'data');
  live = join(tmp.path, 'live');
  log = captureLogger();
  await makeTree(live, { 'data/p1/values.bin': 'v'.repeat(10), 'indexdb/meta.json': '{}' });
  await backup(live, dst, 'latest', { now: () => Date.parse('2024-03-05T07:00:00Z') });
  await copyBackup(dst, 'latest', 'daily/2024-03-05');
  fx = await startApiServer({ dst, dataDir, live, logger: log.logger, basicAuth: creds });
});
afterEach(async () => {
  await fx.stop();
  log.stop();
  await tmp.cleanup();
});

// cli runs one command against the fixture's API, returning its status and stdout.
async function cli(args: string[], client = new ApiClient({ apiUrl: fx.base, basicAuth: creds })) {
  let out = '';
  let usage = '';
  const deps: CliDeps = {
    logger: log.logger,
    apiClient: () => client,
    restore: async () => (await runRestoreCommand({
      dataDir, openRemote: (u) => createRemoteFs(u), concurrency: 2, maxBytesPerSecond: 0, logger: log.logger, now: Date.now, isDataDirLocked: async () => false,
    })) !== undefined,
    out: (t) => (out += t),
    usage: (t) => (usage += t),
  };
  const code = await runCli(args, deps);
  return { code, out: out === '' ? undefined : (JSON.parse(out) as unknown), usage };
}

const daily = { name: 'daily/2024-03-05', size_bytes: 12, size: '12 B', created_at: '2024-03-05T07:00:00.000Z' };

describe('CLI commands', () => {
  it('backup list prints the backup list JSON', async () => {
    expect(await cli(['backup', 'list'])).toEqual({ code: 0, out: [daily, { ...daily, name: 'latest' }], usage: '' });
  });

  // States and transitions: unlocked → `backup lock <name>` → locked; locked → `backup unlock <name>` → unlocked
  it('backup lock and unlock change the lock and print the record', async () => {
    expect(await cli(['backup', 'lock', 'daily/2024-03-05'])).toEqual({ code: 0, out: { ...daily, locked: true }, usage: '' });
    expect(await dst.hasFile('daily/2024-03-05/backup_locked.ignore')).toBe(true);
    expect(await cli(['backup', 'unlock', 'daily/2024-03-05'])).toEqual({ code: 0, out: { ...daily, locked: false }, usage: '' });
    expect(await dst.hasFile('daily/2024-03-05/backup_locked.ignore')).toBe(false);
    // a backup that does not exist: the server's message, status 1
    expect((await cli(['backup', 'lock', 'daily/2020-01-01'])).code).toBe(1);
    expect(log.messages().at(-1)).toMatch(/cannot run "backup lock daily\/2020-01-01": PUT http:\/\/127\.0\.0\.1:\d+\/api\/v1\/backups\/daily\/2020-01-01 failed with HTTP 404: backup "daily\/2020-01-01" does not exist/);
  });

  // States and transitions: mark absent → `restore create` → present; present → `restore delete` → absent
  it('restore create, get and delete manage the mark', async () => {
    const url = `${dst.url}/daily/2024-03-05`;
    expect(await cli(['restore', 'get'])).toEqual({ code: 0, out: undefined, usage: '' });
    expect(log.messages().at(-1)).toBe('no restore mark');
    expect(await cli(['restore', 'create', 'daily/2024-03-05'])).toEqual({ code: 0, out: { backup: url }, usage: '' });
    expect(await cli(['restore', 'get'])).toEqual({ code: 0, out: { backup: url }, usage: '' });
    expect(await cli(['restore', 'delete'])).toEqual({ code: 0, out: undefined, usage: '' });
    await expect(access(join(dataDir, RESTORE_MARK))).rejects.toThrow(/ENOENT/);
    expect(await cli(['restore', 'delete'])).toEqual({ code: 0, out: undefined, usage: '' }); // nothing to delete: still fine
    // a full storage URL, as when restoring one cluster's node from another's backups
    expect(await cli(['restore', 'create', `${dst.url}/latest`])).toEqual({ code: 0, out: { backup: `${dst.url}/latest` }, usage: '' });
    expect((await cli(['restore', 'create', 'fs:///nowhere/latest'])).code).toBe(1);
    expect(log.messages().at(-1)).toMatch(/failed with HTTP 404: cannot mark fs:\/\/\/nowhere\/latest for restore: the backup does not exist or is not complete/);
  });

  // States and transitions: mark present → `restore` (storage stopped) → restore performed; absent → `restore` → exit 0
  it('restore restores the marked backup, and does nothing successfully without a mark', async () => {
    expect(await cli(['restore'])).toEqual({ code: 0, out: undefined, usage: '' });
    expect(log.messages().at(-1)).toBe(`no restore mark in "${dataDir}"; nothing to restore`);
    await makeTree(dataDir, { 'data/old.bin': 'old' });
    await cli(['restore', 'create', 'latest']);
    expect(await cli(['restore'])).toEqual({ code: 0, out: undefined, usage: '' });
    expect(await readTree(dataDir)).toEqual(await readTree(live));
    expect(log.messages().at(-1)).toMatch(/^restored fs:\/\/\/\S+\/latest into ".*": 2 files \(12 bytes\), downloaded 12 bytes$/);
  });

  it('sends credentials from -apiURL or -httpAuth.*, and reports a refusal clearly', async () => {
    const inUrl = fx.base.replace('http://', `http://${encodeURIComponent(creds.username)}:${encodeURIComponent(creds.password)}@`);
    expect((await cli(['backup', 'list'], new ApiClient({ apiUrl: inUrl }))).code).toBe(0);
    expect((await cli(['backup', 'list'], new ApiClient({ apiUrl: fx.base }))).code).toBe(1);
    expect(log.messages().at(-1)).toMatch(/GET http:\/\/127\.0\.0\.1:\d+\/api\/v1\/backups failed with HTTP 401: Unauthorized/);
  });

  it('answers a usage error with status 2 and the command list', async () => {
    const res = await cli(['backup', 'remove', 'x']);
    expect(res.code).toBe(2);
    expect(res.usage).toMatch(/^unknown command "backup remove x"; .*\ncommands \(without one, .*\n  backup list /s);
  });
});

describe('runRestoreCommand', () => {
  it('refuses a corrupt backup and leaves the data dir untouched', async () => {
    await makeTree(dataDir, { 'data/old.bin': 'old' });
    await cli(['restore', 'create', 'latest']);
    const before = await readTree(dataDir);
    await dst.delete('latest/data/p1/values.bin/000000000000000A_0000000000000000_000000000000000A');
    const err = await runRestoreCommand({
      dataDir, openRemote: (u) => createRemoteFs(u), concurrency: 2, maxBytesPerSecond: 0, logger: log.logger, now: Date.now, isDataDirLocked: async () => false,
    }).catch((e: unknown) => e as Error);
    expect((err as Error).message).toMatch(/^cannot restore fs:\/\/\/\S+\/latest into ".*": backup is corrupt or incomplete: /);
    expect(await readTree(dataDir)).toEqual(before);
    expect(await readFile(join(dataDir, RESTORE_MARK), 'utf8')).toBe(`${dst.url}/latest`);
  });
});
