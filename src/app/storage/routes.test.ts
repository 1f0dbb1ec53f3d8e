import Fastify, { type FastifyInstance } from 'fastify';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openStorage, type Storage } from '../../lib/storage/index.ts';
import { registerStorageRoutes } from './routes.ts';

let dir: string;
let storage: Storage;
let app: FastifyInstance;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'strata-storage-routes-'));
  storage = await openStorage({ dataPath: dir, backgroundThreads: 0 });
  app = Fastify();
  const keys = { snapshot: () => '', forceFlush: () => '', forceMerge: () => '' };
  await app.register(async (scope) => registerStorageRoutes(scope, storage, keys));
});
afterEach(async () => {
  await app.close();
  await storage.close();
  await rm(dir, { recursive: true, force: true });
});

describe('storage admin routes', () => {
  it('accept POST bodies of any type, reading form arguments from them', async () => {
    const f = async (url: string, payload: string, contentType: string | undefined, wantStatus: number) => {
      const res = await app.inject({ method: 'POST', url, payload, headers: contentType === undefined ? {} : { 'content-type': contentType } });
      expect(res.statusCode, `${url} (${contentType}): ${res.body}`).toBe(wantStatus);
      return res.body;
    };
    // What `curl -d ''`, `curl -X POST` and JSON clients send.
    const created = JSON.parse(await f('/snapshot/create', '', 'application/x-www-form-urlencoded', 200)) as { snapshot: string };
    await f('/snapshot/list', '', undefined, 200);
    await f('/internal/force_flush', '', 'application/json', 200);
    await f('/internal/force_merge', '{"x":1}', 'application/octet-stream', 200);
    // Arguments in a form body; the URL wins over the body.
    await f('/internal/force_merge', 'partition_prefix=../x', 'application/x-www-form-urlencoded', 400);
    await f('/internal/force_merge?partition_prefix=2024', 'partition_prefix=../x', 'application/x-www-form-urlencoded', 200);
    expect(JSON.parse(await f('/snapshot/delete', `snapshot=${created.snapshot}`, 'application/x-www-form-urlencoded', 200))).toEqual({ status: 'ok' });
    expect(await storage.listSnapshots()).toEqual([]);
  });
});
