import type { FastifyInstance, FastifyRequest } from 'fastify';
import { DEFAULT_TENANT, formatTenant, parseTenant, type Tenant, type TenantLister } from '../../../lib/storageapi/index.ts';
import type { RequestScope, SelectDeps } from '../deps.ts';
import { ApiError, badData } from '../errors.ts';
import { type ReadContext, runRead } from '../request-context.ts';
import type { SelectPaths } from '../routes.ts';
import { parseTimeParam } from '../time-params.ts';
import type { FanoutStorage } from './fanout.ts';
import { countTenantRequest } from './metrics.ts';

/** CLUSTER_PATHS serve the read API under /select/<tenant>/prometheus (and /graphite), deletion under /delete/<tenant>/prometheus (SPEC D). */
export const CLUSTER_PATHS: SelectPaths = {
  readPrefixes: ['/select/:tenant', '/select/:tenant/prometheus'],
  deletePrefixes: ['/delete/:tenant', '/delete/:tenant/prometheus'],
  resetCachePath: '/select/internal/resetRollupResultCache',
};

/** tenantFromPath reads the tenant of a /select/<tenant>/… or /delete/<tenant>/… request; a bad one is a 400 naming it. */
export function tenantFromPath(req: FastifyRequest): Tenant {
  const text = (req.params as { tenant?: string }).tenant ?? '';
  try {
    return parseTenant(text);
  } catch (err) {
    throw new ApiError('bad_data', `${(err as Error).message}; the path is /select/<accountID[:projectID]>/prometheus/…`, { cause: err });
  }
}

/**
 * clusterScope is SelectDeps.scope of the cluster select: the request's tenant from its path
 * (counted in tsdb_tenant_select_requests_total for reads) and its own view of the fan-out.
 */
export function clusterScope(fanout: FanoutStorage): (req: FastifyRequest, kind: 'read' | 'delete') => RequestScope {
  return (req, kind) => {
    const tenant = tenantFromPath(req);
    if (kind === 'read') countTenantRequest(tenant);
    const storage = fanout.forRequest();
    return { tenant, storage, isPartial: () => storage.isPartial };
  };
}

/**
 * registerTenantsRoute serves /admin/tenants: `{"status":"success","data":["<accountID>:<projectID>",…]}`
 * for the tenants holding data between `start` (default 0) and `end` (default now), the
 * VictoriaMetrics cluster's shape. Register it in the scope of the select routes (form bodies).
 */
export function registerTenantsRoute(app: FastifyInstance, deps: SelectDeps, fanout: FanoutStorage): void {
  app.route({
    method: ['GET', 'POST'], url: '/admin/tenants',
    handler: (req, reply) => {
      const storage = fanout.forRequest();
      const scope: RequestScope = { tenant: DEFAULT_TENANT, storage, isPartial: () => storage.isPartial };
      return runRead(req, reply, { ...deps, scope: () => scope }, (c) => handleTenants(c, storage));
    },
  });
}

async function handleTenants(c: ReadContext, lister: TenantLister): Promise<object> {
  const time = (name: string, fallback: number): number => {
    const v = c.params.get(name);
    if (v === undefined || v === '') return fallback;
    try {
      return parseTimeParam(v, c.now);
    } catch (err) {
      throw badData(name, err);
    }
  };
  const end = time('end', c.now);
  const start = time('start', 0);
  if (end < start) throw new ApiError('bad_data', 'invalid parameter "end": end timestamp must not be before start time');
  const tenants = await lister.listTenants({ minTimestamp: start, maxTimestamp: end }, c.signal);
  return { status: 'success', data: tenants.map(formatTenant) };
}
