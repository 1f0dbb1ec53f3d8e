import type { FastifyInstance, FastifyRequest } from 'fastify';
import { parseTenant, type Tenant } from '../../../lib/storageapi/index.ts';
import { InsertError } from '../errors.ts';
import type { InsertOptions } from '../ingest.ts';
import { registerInsertRoutes } from '../routes.ts';

/**
 * tenantFromPath reads the tenant of a /insert/<accountID[:projectID]>/… request; a bad one is a
 * 400 naming it (DECISIONS.md "Cluster tenant in URL").
 */
export function tenantFromPath(req: FastifyRequest): Tenant {
  const text = (req.params as { tenant?: string }).tenant ?? '';
  try {
    return parseTenant(text);
  } catch (err) {
    throw new InsertError('ERR_INSERT_BAD_ARG', `${(err as Error).message}; the path is /insert/<accountID[:projectID]>/<format>/…`, { cause: err });
  }
}

/**
 * registerClusterInsertRoutes serves every ingestion route of the single node under
 * /insert/<tenant>/ (SPEC D "Cluster ingestion"), e.g. /insert/0/prometheus/api/v1/write and
 * /insert/1:2/influx/write, with the same handlers and answers.
 */
export async function registerClusterInsertRoutes(app: FastifyInstance, o: InsertOptions): Promise<void> {
  await app.register(async (scope) => registerInsertRoutes(scope, o, tenantFromPath), { prefix: '/insert/:tenant' });
}
