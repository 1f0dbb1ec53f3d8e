import type { FastifyInstance } from 'fastify';
import { KeyThrottle } from '../../lib/logger/index.ts';
import { agentSeries, csvRows, influxLine, jsonLines, nativeBlocks, openTsdbPut, prometheusText, remoteWrite } from './formats.ts';
import { type FormatHandler, handleIngest, type InsertOptions, type TenantOf } from './ingest.ts';

/** INSERT_ROUTES is the ingestion route table: paths, the `type` label of row metrics, and the format. */
export const INSERT_ROUTES: ReadonlyArray<{ readonly paths: readonly string[]; readonly type: string; readonly handler: FormatHandler }> = [
  { paths: ['/api/v1/import/prometheus', '/prometheus/api/v1/import/prometheus'], type: 'prometheus', handler: prometheusText },
  // Not in the spec, but it is how Prometheus and vmagent send data.
  { paths: ['/api/v1/write', '/prometheus/api/v1/write'], type: 'promremotewrite', handler: remoteWrite },
  { paths: ['/write', '/influx/write', '/influx/api/v2/write', '/api/v2/write'], type: 'influx', handler: influxLine },
  { paths: ['/api/v1/import', '/prometheus/api/v1/import'], type: 'vmimport', handler: jsonLines },
  { paths: ['/api/v1/import/csv', '/prometheus/api/v1/import/csv'], type: 'csvimport', handler: csvRows },
  { paths: ['/api/v1/import/native', '/prometheus/api/v1/import/native'], type: 'native', handler: nativeBlocks },
  { paths: ['/agentfmt/api/v1/series'], type: 'agentfmt', handler: agentSeries },
  // The cluster's HTTP form of -opentsdbHTTPListenAddr (SPEC D: /insert/<account_id>/opentsdb/api/put).
  { paths: ['/opentsdb/api/put'], type: 'opentsdbhttp', handler: openTsdbPut },
];

/**
 * REJECTION_LOG_INTERVAL_MS: a rejected ingestion request is logged at most once per route per this
 * interval (as VictoriaMetrics throttles its insert-path warnings), so a sender retrying a bad body
 * in a loop cannot flood the log.
 */
export const REJECTION_LOG_INTERVAL_MS = 5_000;

// What InfluxDB v1 clients (Telegraf) ask before writing: SHOW DATABASES, and /ping.
const INFLUX_DATABASES = { results: [{ statement_id: 0, series: [{ name: 'databases', columns: ['name'], values: [['_internal']] }] }] };

/**
 * registerInsertRoutes adds every ingestion route to app (an encapsulated fastify scope): bodies are
 * never parsed by fastify, each handler streams the raw request itself. The cluster registers the
 * same routes under `/insert/:tenant` with a tenant read from the URL.
 */
export async function registerInsertRoutes(app: FastifyInstance, o: InsertOptions, tenant: TenantOf): Promise<void> {
  const rejections = new KeyThrottle(REJECTION_LOG_INTERVAL_MS);
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', (_req, _payload, done) => done(null));
  for (const r of INSERT_ROUTES) {
    for (const path of r.paths) app.post(path, (req, reply) => handleIngest(req, reply, tenant, r.type, r.handler, o, rejections));
  }
  app.route({ method: ['GET', 'POST'], url: '/agentfmt/api/v1/validate', handler: async () => ({ valid: true }) });
  for (const url of ['/query', '/influx/query']) app.route({ method: ['GET', 'POST'], url, handler: async () => INFLUX_DATABASES });
  for (const url of ['/ping', '/influx/ping']) {
    app.route({ method: ['GET', 'HEAD'], url, handler: async (_req, reply) => reply.code(204).header('x-influxdb-version', '1.8.10').send() });
  }
}
