import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { formBodiesOnly } from '../../lib/httpserver/index.ts';
import type { SelectDeps } from './deps.ts';
import { selectAuthKeys } from './flags.ts';
import { lazyImport } from '../../lib/process/lazy-import.ts';
import { handleInstantQuery, handleRangeQuery } from './handle-query.ts';
import { QueryStats } from './query-stats.ts';
import { handleAlerts, handleRules } from './vmalert.ts';
import { EXPORT_DEADLINE, QUERY_DEADLINE, type ReadContext, type ReadDeadline, runRead, toApiError } from './request-context.ts';
import { RequestParams } from './request-params.ts';

type Handler = (c: ReadContext, req: FastifyRequest, reply: FastifyReply) => Promise<unknown>;

// The queries' handlers load with the routes (the first answer of a start is a query); the others
// load on their route's first request, so that a start does not load their modules (issue 18 item 4).
const exportHandlers = lazyImport(() => import('./handle-export.ts'));
const graphiteHandlers = lazyImport(() => import('./handle-graphite.ts'));
const indexHandlers = lazyImport(() => import('./handle-index.ts'));
const parseHandlers = lazyImport(() => import('./handle-parse.ts'));
const queryStatsHandlers = lazyImport(() => import('./handle-query-stats.ts'));
const statusHandlers = lazyImport(() => import('./handle-status.ts'));

/**
 * READ_ROUTES is the read-API route table (SPEC part D). Each is served for GET and POST
 * (form-encoded; a body of another type is ignored) at its path and under /prometheus.
 */
export const READ_ROUTES: ReadonlyArray<readonly [string, Handler, ReadDeadline?]> = [
  ['/api/v1/query', (c) => handleInstantQuery(c)],
  ['/api/v1/query_range', (c) => handleRangeQuery(c)],
  ['/api/v1/series', async (c) => (await indexHandlers()).handleSeries(c)],
  ['/api/v1/series/count', async (c) => (await indexHandlers()).handleSeriesCount(c)],
  ['/api/v1/labels', async (c) => (await indexHandlers()).handleLabels(c)],
  ['/api/v1/label/:name/values', async (c, req) => (await indexHandlers()).handleLabelValues(c, (req.params as { name: string }).name)],
  ['/api/v1/status/tsdb', async (c) => (await indexHandlers()).handleTsdbStatus(c)],
  // Exports stream whole ranges and may run for hours: they have their own deadline.
  ['/api/v1/export', async (c) => (await exportHandlers()).handleExportJson(c), EXPORT_DEADLINE],
  ['/api/v1/export/csv', async (c) => (await exportHandlers()).handleExportCsv(c), EXPORT_DEADLINE],
  ['/api/v1/export/native', async (c) => (await exportHandlers()).handleExportNative(c), EXPORT_DEADLINE],
  ['/federate', async (c) => (await exportHandlers()).handleFederate(c), EXPORT_DEADLINE],
  ['/graphite/metrics/find', async (c) => (await graphiteHandlers()).handleGraphiteFind(c)],
  ['/metrics/find', async (c) => (await graphiteHandlers()).handleGraphiteFind(c)],
  // What Grafana's Prometheus data source asks besides queries (README "Compatibility").
  ['/api/v1/status/buildinfo', async () => (await statusHandlers()).handleBuildInfo()],
  ['/api/v1/metadata', async (c) => (await statusHandlers()).handleMetadata(c)],
  ['/api/v1/query_exemplars', async (c) => (await statusHandlers()).handleQueryExemplars(c)],
  ['/api/v1/rules', (c, req, reply) => handleRules(c, req, reply)],
  ['/api/v1/alerts', (c, req, reply) => handleAlerts(c, req, reply)],
  ['/api/v1/status/config', async () => (await statusHandlers()).handleStatusConfig()],
  ['/api/v1/format_query', async (c) => (await parseHandlers()).handleFormatQuery(c)],
  ['/api/v1/parse_query', async (c) => (await parseHandlers()).handleParseQuery(c)],
  ['/api/v1/status/active_queries', async (c) => (await queryStatsHandlers()).handleActiveQueries(c)],
  ['/api/v1/status/top_queries', async (c) => (await queryStatsHandlers()).handleTopQueries(c)],
];

/**
 * SelectPaths says where the routes are served: the single node's paths by default; the cluster
 * select serves the same routes under /select/<tenant>/prometheus and /delete/<tenant>/prometheus
 * (SPEC D URL forms), with SelectDeps.scope reading the tenant.
 */
export interface SelectPaths {
  /** readPrefixes: every READ_ROUTES path is served under each. */
  readonly readPrefixes: readonly string[];
  /** deletePrefixes: /api/v1/admin/tsdb/delete_series is served under each. */
  readonly deletePrefixes: readonly string[];
  /**
   * aliases: the read and delete routes are also served with each of these inserted before their
   * path (/prometheus/api/v1/query), through the routes' prefixAliases (the server rewrites the URL;
   * lib/httpserver prefix-aliases.ts) rather than as second routes: fewer routes to build at start.
   */
  readonly aliases?: readonly string[];
  readonly resetCachePath: string;
}

export const SINGLE_NODE_PATHS: SelectPaths = { readPrefixes: [''], deletePrefixes: [''], aliases: ['/prometheus'], resetCachePath: '/internal/resetRollupResultCache' };

/** registerSelectRoutes adds the read routes, delete_series and the cache reset to app. */
export async function registerSelectRoutes(app: FastifyInstance, given: SelectDeps, paths: SelectPaths = SINGLE_NODE_PATHS): Promise<void> {
  const deps: SelectDeps = given.queryStats !== undefined ? given : { ...given, queryStats: new QueryStats({ lastQueriesCount: 20_000, minQueryDurationMs: 1, now: given.now }) };
  await formBodiesOnly(app);
  const prefixAliases = paths.aliases ?? [];
  for (const prefix of paths.readPrefixes) {
    for (const [path, handler, deadline] of READ_ROUTES) {
      app.route({ method: ['GET', 'POST'], url: `${prefix}${path}`, config: { prefixAliases }, handler: (req, reply) => runRead(req, reply, deps, (c) => handler(c, req, reply), deadline ?? QUERY_DEADLINE) });
    }
  }
  for (const prefix of paths.deletePrefixes) {
    app.route({
      method: ['POST', 'PUT'], url: `${prefix}/api/v1/admin/tsdb/delete_series`,
      config: { authKey: selectAuthKeys.delete, authKeyFlag: 'deleteAuthKey', prefixAliases },
      handler: (req, reply) => deleteSeries(req, reply, deps),
    });
  }
  app.route({
    method: ['GET', 'POST', 'HEAD'], url: paths.resetCachePath,
    config: { authKey: selectAuthKeys.resetCache, authKeyFlag: 'search.resetCacheAuthKey' },
    handler: async (_req, reply) => {
      deps.cache.reset();
      return reply.type('text/plain').send('');
    },
  });
}

/** deleteSeries answers 204 with an empty body, or a plain-text error (DECISIONS.md "delete_series"). */
async function deleteSeries(req: FastifyRequest, reply: FastifyReply, deps: SelectDeps): Promise<FastifyReply> {
  const ac = new AbortController();
  try {
    const scope = deps.scope?.(req, 'delete');
    const d = scope === undefined ? deps : { ...deps, tenant: scope.tenant, storage: scope.storage };
    const { handleDeleteSeries } = await indexHandlers();
    await handleDeleteSeries({ params: new RequestParams(req.query, req.body), signal: ac.signal, now: deps.now(), deps: d });
    return reply.code(204).send();
  } catch (err) {
    const e = toApiError(err);
    if (e.kind === 'internal') deps.logger.error({ err }, 'cannot delete series');
    return reply.code(e.status).type('text/plain').send(e.message);
  }
}
