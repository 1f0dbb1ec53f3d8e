import { type FastifyInstance, type FastifyReply } from 'fastify';
import { counter } from '../../lib/metrics/index.ts';
import { checkSnapshotName, type Storage } from '../../lib/storage/index.ts';
import { type StorageAuthKeys } from './flags.ts';

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
 * registerStorageRoutes adds the storage admin routes (GET or POST): /snapshot/create|list|delete|
 * delete_all with the response shapes of DECISIONS.md "Snapshot API", /internal/force_flush and
 * /internal/force_merge. Each is protected by its auth key flag when set.
 */
export async function registerStorageRoutes(app: FastifyInstance, storage: Storage, keys: StorageAuthKeys): Promise<void> {
  const snap = { authKey: keys.snapshot, authKeyFlag: 'snapshotAuthKey' };
  const route = (url: string, config: object, handler: (q: Record<string, string | undefined>) => Promise<object>) =>
    app.route({ method: ['GET', 'POST'], url, config, handler: async (req, reply) => snapshotReply(reply, url, () => handler(req.query as Record<string, string | undefined>)) });

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
      const prefix = (req.query as { partition_prefix?: string }).partition_prefix ?? '';
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
