import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { formBodiesOnly } from '../../lib/httpserver/index.ts';
import { counter } from '../../lib/metrics/index.ts';
import { checkSnapshotName, type Storage } from '../../lib/storage/index.ts';
import type { StorageAuthKeys } from './flags.ts';

const snapshotErrors = counter('tsdb_snapshot_errors_total', 'Snapshot API calls that failed', ['op']);

/** SnapshotError carries the status of a failed snapshot call; the body is {"status":"error","msg"}. */
class SnapshotError extends Error {
  readonly status: number;
  constructor(status: number, message: string) {
    super(message);
    this.status = status;
  }
}

/**
 * args reads the admin routes' arguments from the URL and a form body (`curl -d snapshot=…`), the
 * URL winning, as the read API does.
 */
function args(req: FastifyRequest): Record<string, string | undefined> {
  const out: Record<string, string | undefined> = {};
  for (const source of [req.body, req.query]) {
    if (typeof source !== 'object' || source === null) continue;
    for (const [k, v] of Object.entries(source as Record<string, unknown>)) out[k] = Array.isArray(v) ? String(v.at(-1)) : String(v);
  }
  return out;
}

/**
 * registerStorageRoutes adds the storage admin routes (GET or POST): /snapshot/create|list|delete|
 * delete_all with the response shapes of DECISIONS.md "Snapshot API", /internal/force_flush and
 * /internal/force_merge. Each is protected by its auth key flag when set. A POST may carry its
 * arguments as a form body; any other body is ignored, so `curl -d ''` works too.
 */
export async function registerStorageRoutes(app: FastifyInstance, storage: Storage, keys: StorageAuthKeys): Promise<void> {
  await formBodiesOnly(app);
  const snap = { authKey: keys.snapshot, authKeyFlag: 'snapshotAuthKey' };
  const route = (url: string, config: object, handler: (q: Record<string, string | undefined>) => Promise<object>) =>
    app.route({ method: ['GET', 'POST'], url, config, handler: async (req, reply) => snapshotReply(reply, url, () => handler(args(req))) });

  route('/snapshot/create', snap, async () => ({ status: 'ok', snapshot: await storage.createSnapshot() }));
  route('/snapshot/list', snap, async () => ({ status: 'ok', snapshots: await storage.listSnapshots() }));
  route('/snapshot/delete', snap, async (q) => {
    const name = q.snapshot ?? '';
    try {
      checkSnapshotName(name);
    } catch (err) {
      throw new SnapshotError(400, `invalid "snapshot" arg ${JSON.stringify(name)}: ${(err as Error).message}`);
    }
    if (!(await storage.listSnapshots()).includes(name)) throw new SnapshotError(404, `cannot find snapshot ${JSON.stringify(name)}`);
    await storage.deleteSnapshot(name);
    return { status: 'ok' };
  });
  route('/snapshot/delete_all', snap, async () => {
    await storage.deleteAllSnapshots();
    return { status: 'ok' };
  });

  app.route({
    method: ['GET', 'POST'], url: '/internal/force_flush', config: { authKey: keys.forceFlush, authKeyFlag: 'forceFlushAuthKey' },
    handler: async (_req, reply) => {
      await storage.forceFlush();
      return reply.type('text/plain').send('');
    },
  });
  app.route({
    method: ['GET', 'POST'], url: '/internal/force_merge', config: { authKey: keys.forceMerge, authKeyFlag: 'forceMergeAuthKey' },
    handler: async (req, reply) => {
      const prefix = args(req).partition_prefix ?? '';
      if (!/^(\d{4}(_\d{0,2})?)?$/.test(prefix)) return reply.code(400).type('text/plain').send(`invalid "partition_prefix" arg ${JSON.stringify(prefix)}: expected YYYY_MM or a prefix of it`);
      await storage.forceMerge(prefix);
      return reply.type('text/plain').send('');
    },
  });
}

async function snapshotReply(reply: FastifyReply, url: string, run: () => Promise<object>): Promise<FastifyReply> {
  try {
    return reply.send(await run());
  } catch (err) {
    snapshotErrors.inc({ op: url.slice('/snapshot/'.length) });
    const status = err instanceof SnapshotError ? err.status : 500;
    return reply.code(status).send({ status: 'error', msg: (err as Error).message });
  }
}
