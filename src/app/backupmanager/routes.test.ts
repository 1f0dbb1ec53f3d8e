import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { backup, copyBackup, FsRemote, RESTORE_MARK } from '../../lib/backup/index.ts';
import { FaultyRemote } from '../../lib/backup/testing/faulty-remote.ts';
import { makeTree, tempDir, type TempDir } from '../../lib/backup/testing/tree.ts';
import { captureLogger, startApiServer, type ApiServerFixture, type CapturedLogger } from './testing.test-helpers.ts';

let tmp: TempDir;
let dst: FsRemote;
let dataDir: string;
let live: string;
let log: CapturedLogger;
let fx: ApiServerFixture;
const auth = { authorization: `Basic ${Buffer.from('admin:pw').toString('base64')}` };

beforeEach(async () => {
  tmp = await tempDir('bm-routes');
  dst = new FsRemote({ root: join(tmp.path, 'dst'), fsync: false });
  dataDir = join(tmp.path, 'data');
  live = join(tmp.path, 'live');
  log = captureLogger();
  await makeTree(live, { 'data/p1/values.bin': 'v'.repeat(2000), 'indexdb/meta.json': '{}' });
  await backup(live, dst, 'latest', { now: () => Date.parse('2024-03-05T07:00:00Z') });
  await copyBackup(dst, 'latest', 'daily/2024-03-05');
  await copyBackup(dst, 'latest', 'hourly/2024-03-05:07');
  await dst.writeFile('daily/2024-03-04/f/0000000000000001_0000000000000000_0000000000000001', 'x'); // incomplete
  fx = await startApiServer({ dst, dataDir, live, logger: log.logger, basicAuth: { username: 'admin', password: 'pw' } });
});
afterEach(async () => {
  await fx.stop();
  log.stop();
  await tmp.cleanup();
});

interface Answer {
  readonly status: number;
  readonly body: unknown;
}

async function call(method: string, url: string, payload?: string, headers: Record<string, string> = auth): Promise<Answer> {
  const res = await fx.server.app.inject({ method: method as 'GET', url, payload, headers });
  return { status: res.statusCode, body: res.headers['content-type']?.startsWith('application/json') ? res.json() : res.body };
}

const record = (name: string, locked?: boolean) => ({
  name, size_bytes: 2002, size: '2.0 KiB', created_at: '2024-03-05T07:00:00.000Z', ...(locked === undefined ? {} : { locked }),
});

describe('backup manager API', () => {
  it('GET /api/v1/backups lists complete backups without "locked"', async () => {
    expect(await call('GET', '/api/v1/backups')).toEqual({
      status: 200,
      body: [record('daily/2024-03-05'), record('hourly/2024-03-05:07'), record('latest')],
    });
  });

  it('GET /api/v1/backups/<name> returns one backup with "locked"; unknown and bad names fail', async () => {
    const f = async (url: string, want: Answer) => expect(await call('GET', url)).toEqual(want);
    await f('/api/v1/backups/daily/2024-03-05', { status: 200, body: record('daily/2024-03-05', false) });
    await f('/api/v1/backups/hourly%2F2024-03-05%3A07', { status: 200, body: record('hourly/2024-03-05:07', false) });
    await f('/api/v1/backups/daily/2024-03-04', { status: 404, body: { error: expect.stringMatching(/backup "daily\/2024-03-04" does not exist in fs:\/\/\/\S+ or is not complete/) } });
    await f('/api/v1/backups/daily/x.ignore', { status: 400, body: { error: expect.stringMatching(/invalid backup name "daily\/x\.ignore"/) } });
    await f('/api/v1/backups/', { status: 400, body: { error: expect.stringMatching(/missing backup name/) } });
  });

  // States and transitions: Backup unlocked → PUT {locked: true} → locked; locked → PUT {locked: false} → unlocked
  it('PUT /api/v1/backups/<name> locks and unlocks an existing backup', async () => {
    const f = async (name: string, payload: string, want: Answer) => expect(await call('PUT', `/api/v1/backups/${name}`, payload)).toEqual(want);
    await f('daily/2024-03-05', '{"locked":true}', { status: 200, body: record('daily/2024-03-05', true) });
    expect(await call('GET', '/api/v1/backups/daily/2024-03-05')).toEqual({ status: 200, body: record('daily/2024-03-05', true) });
    expect(await dst.hasFile('daily/2024-03-05/backup_locked.ignore')).toBe(true);
    await f('daily/2024-03-05', '{"locked":false}', { status: 200, body: record('daily/2024-03-05', false) });
    expect(await dst.hasFile('daily/2024-03-05/backup_locked.ignore')).toBe(false);
    // the condition "backup exists"
    await f('daily/2020-01-01', '{"locked":true}', { status: 404, body: { error: expect.stringMatching(/does not exist/) } });
    // bad bodies
    await f('daily/2024-03-05', 'locked=true', { status: 400, body: { error: expect.stringMatching(/cannot parse request body as JSON/) } });
    await f('daily/2024-03-05', '{"locked":1}', { status: 400, body: { error: expect.stringMatching(/"locked" must be a boolean/) } });
    await f('daily/2024-03-05', '', { status: 400, body: { error: expect.stringMatching(/missing request body/) } });
    await f('daily/2024-03-05', `{"locked":true,"pad":"${'x'.repeat(70_000)}"}`, { status: 413, body: { error: expect.stringMatching(/too large/) } });
  });

  it('POST /api/v1/backups starts a backup now (201) and refuses a second while it runs (400)', async () => {
    expect(await call('POST', '/api/v1/backups')).toEqual({ status: 201, body: {} });
    expect(await call('POST', '/api/v1/backups')).toEqual({ status: 400, body: { error: expect.stringMatching(/^backup to fs:\/\/\/\S+ is in progress since /) } });
    await fx.runner.idle();
    expect(log.messages().some((m) => m.startsWith('backup run finished in'))).toBe(true);
  });

  // States and transitions: Restore mark absent → POST restore → present; present → DELETE restore → absent
  it('POST, GET and DELETE /api/v1/restore manage the restore mark', async () => {
    const url = `${dst.url}/daily/2024-03-05`;
    expect(await call('GET', '/api/v1/restore')).toEqual({ status: 404, body: { error: 'restore mark not found' } });
    expect(await call('POST', '/api/v1/restore', '{"backup":"daily/2024-03-05"}')).toEqual({ status: 200, body: { backup: url } });
    expect(await readFile(join(dataDir, RESTORE_MARK), 'utf8')).toBe(url);
    expect(await call('GET', '/api/v1/restore')).toEqual({ status: 200, body: { backup: url } });
    expect(await call('DELETE', '/api/v1/restore')).toEqual({ status: 200, body: {} });
    expect(await call('GET', '/api/v1/restore')).toEqual({ status: 404, body: { error: 'restore mark not found' } });
    expect(await call('DELETE', '/api/v1/restore')).toEqual({ status: 200, body: {} }); // idempotent
  });

  it('POST /api/v1/restore accepts a full URL and refuses missing, incomplete and malformed backups', async () => {
    const f = async (payload: string, want: Answer) => expect(await call('POST', '/api/v1/restore', payload)).toEqual(want);
    await f(`{"backup":"${dst.url}/latest"}`, { status: 200, body: { backup: `${dst.url}/latest` } });
    await f('{"backup":"daily/2024-03-04"}', { status: 404, body: { error: expect.stringMatching(/cannot mark fs:\/\/\/\S+\/daily\/2024-03-04 for restore: the backup does not exist or is not complete/) } });
    await f('{"backup":"gopher://x/y"}', { status: 400, body: { error: expect.stringMatching(/unsupported scheme "gopher"/) } });
    await f('{"backup":"../x"}', { status: 400, body: { error: expect.stringMatching(/invalid backup name/) } });
    await f('{}', { status: 400, body: { error: expect.stringMatching(/"backup" must be a non-empty string/) } });
    // the earlier, valid mark is still there
    expect(await call('GET', '/api/v1/restore')).toEqual({ status: 200, body: { backup: `${dst.url}/latest` } });
  });

  it('is protected by -httpAuth.*', async () => {
    const f = async (method: string, url: string) => expect((await call(method, url, undefined, {})).status).toBe(401);
    await f('GET', '/api/v1/backups');
    await f('GET', '/api/v1/backups/latest');
    await f('PUT', '/api/v1/backups/latest');
    await f('POST', '/api/v1/backups');
    await f('POST', '/api/v1/restore');
    await f('GET', '/api/v1/restore');
    await f('DELETE', '/api/v1/restore');
    expect(fx.runner.running).toBe(false);
  });

  it('answers a failing destination with 500 and the cause', async () => {
    await fx.stop();
    const broken = new FaultyRemote(dst, (c) => (c.op === 'list' ? { error: new Error('503 Slow Down') } : undefined));
    fx = await startApiServer({ dst: broken, dataDir, live, logger: log.logger });
    expect(await call('GET', '/api/v1/backups')).toEqual({ status: 500, body: { error: '503 Slow Down' } });
    expect(log.lines.some((l) => l.startsWith('error\t') && l.includes('cannot serve GET /api/v1/backups: 503 Slow Down'))).toBe(true);
  });
});
