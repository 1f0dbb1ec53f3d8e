import type { FastifyReply, FastifyRequest } from 'fastify';
import type { KeyThrottle, Logger } from '../../lib/logger/index.ts';
import { counter } from '../../lib/metrics/index.ts';
import * as common from '../../lib/protoparser/common/index.ts';
import { type Inserter, LimitExceededError, type MetricRow, type Tenant } from '../../lib/storageapi/index.ts';
import { classifyInsertError, InsertError } from './errors.ts';
import { ExtraLabeler, parseExtraLabels } from './extra-labels.ts';
import type { KeyDictionaries, ParsePool, RecentMetadata } from '../../lib/keyedparse/index.ts';
import { hasInvalidTimestamp, InvalidRows } from './row-check.ts';

const rowsInserted = counter('tsdb_rows_inserted_total', 'Rows accepted by ingestion routes and receivers, by format', ['type']);
const rowsInvalid = counter('tsdb_rows_invalid_total', 'Lines or rows rejected by ingestion (unparsable, or over a storage limit), by format', ['type']);

/** InsertOptions are what every ingestion handler needs. */
export interface InsertOptions {
  readonly inserter: Inserter;
  /** maxRequestBytes is -maxInsertRequestSize: the cap on a body, as sent and after decompression. */
  readonly maxRequestBytes: number;
  readonly now: () => number;
  /** Influx options (-influxMeasurementFieldSeparator, -influxSkipSingleField, -influxSkipMeasurement). */
  readonly influx: { readonly measurementFieldSeparator: string; readonly skipSingleField: boolean; readonly skipMeasurement: boolean };
  /** agentSanitizeMetricName is -datadog.sanitizeMetricName. */
  readonly agentSanitizeMetricName: boolean;
  readonly logger: Logger;
  /**
   * onBackfill is called when a stored batch holds rows older than backfillBeforeMs before now:
   * the read side drops cached query results that could now be stale.
   */
  readonly onBackfill?: () => void;
  readonly backfillBeforeMs?: number;
  /**
   * prometheusKeys numbers the series keys of Prometheus text bodies (shared by all requests):
   * with it, and an inserter that takes keyed batches, those bodies skip a Row object per line.
   */
  readonly prometheusKeys?: common.SeriesKeyDictionary;
  /** remoteWriteKeys is prometheusKeys for remote-write bodies (label sets keyed by their bytes). */
  readonly remoteWriteKeys?: common.SeriesKeyDictionary;
  /** influxKeys is prometheusKeys for influx bodies, one dictionary per `db` argument. */
  readonly influxKeys?: KeyDictionaries;
  /**
   * parsePool parses Prometheus text bodies on worker threads (with an inserter that takes keyed
   * batches); absent, or once its workers cannot start, they are parsed on the event loop.
   */
  readonly parsePool?: ParsePool;
  /** onBodyRead is told how many bytes each ingestion request body had (see YoungGarbage). */
  readonly onBodyRead?: (bytes: number) => void;
  /**
   * metadata receives the metric metadata bodies carry (Prometheus text HELP/TYPE/UNIT lines,
   * remote-write metadata) with the tenant it belongs to; absent (-enableMetadata=false), formats
   * skip it.
   */
  readonly metadata?: (tenant: Tenant, u: common.MetadataUpdate) => void;
  /** recentMetadata lets repeated metadata lines skip decoding (see RecentMetadata); absent, none do. */
  readonly recentMetadata?: RecentMetadata;
  /** onInserted is told about every batch storage accepted: its tenant, format (`type`) and row count. */
  readonly onInserted?: (tenant: Tenant, type: string, rows: number) => void;
}

/**
 * TenantOf says which tenant a request writes to: a fixed one (single node, network receivers),
 * or one read from the request (the cluster's /insert/<tenant>/… routes), which throws an
 * InsertError for a bad one.
 */
export type TenantOf = Tenant | ((req: FastifyRequest) => Tenant);

/**
 * KeyedInserter is an Inserter that also stores keyed batches (the in-process storage does), with
 * the same guarantees as addRows.
 */
export interface KeyedInserter extends Inserter {
  addKeyedRows(tenant: Tenant, batch: common.KeyedColumns): Promise<void>;
}

function isKeyedInserter(i: Inserter): i is KeyedInserter {
  return typeof (i as Partial<KeyedInserter>).addKeyedRows === 'function';
}

/** IngestInput is one request body plus what a format handler needs to turn it into rows. */
export interface IngestInput {
  readonly body: common.ByteSource;
  readonly contentEncoding: string | undefined;
  readonly query: Readonly<Record<string, unknown>>;
  readonly now: () => number;
  /** onBatch stores rows (extra labels applied); awaited, so storage pushes back on the client. */
  readonly onBatch: (rows: MetricRow[]) => Promise<void>;
  /**
   * onKeyedBatch stores a keyed batch; set only when the request needs no per-row rewriting (no
   * extra labels), so a format with a keyed parser may use it instead of onBatch.
   */
  readonly onKeyedBatch?: ((batch: common.KeyedColumns) => Promise<void>) | undefined;
  /** metadata receives the metric metadata of the body, when the options keep it. */
  readonly metadata?: BodyMetadata | undefined;
}

/** BodyMetadata is where a body's metric metadata goes. */
export interface BodyMetadata {
  readonly sink: common.MetadataSink;
  /** recent holds the tenant's recently seen metadata lines (text formats skip those), if kept. */
  readonly recent: common.RecentLines | undefined;
  /** tenantKey names the tenant (`account:project`), for parse workers that keep their own recent lines. */
  readonly tenantKey: string;
}

/** IngestOutcome is what a format handler reports: bad lines/items and a fatal decode error, if any. */
export interface IngestOutcome {
  readonly errors?: common.ErrorSummary;
  readonly fatal?: Error | undefined;
}

/** FormatHandler parses one body of one wire format. */
export type FormatHandler = (input: IngestInput, o: InsertOptions) => Promise<IngestOutcome>;

/** queryValues returns every value of a query arg. */
export function queryValues(query: Readonly<Record<string, unknown>>, name: string): string[] {
  const v = query[name];
  if (v === undefined) return [];
  return (Array.isArray(v) ? v : [v]).map(String);
}

/** queryValue returns the last value of a query arg. */
export function queryValue(query: Readonly<Record<string, unknown>>, name: string): string | undefined {
  return queryValues(query, name).at(-1);
}

/**
 * ingestBody drives one body through a format handler into storage, then reports: 204 when every
 * row was stored; 400 naming the count and first bad line (or row, such as one with a timestamp
 * outside 1970..9999) when some were not (the good ones are stored regardless); 413 over
 * -maxInsertRequestSize; 415 for an unknown Content-Encoding.
 */
export async function ingestBody(input: Omit<IngestInput, 'onBatch' | 'onKeyedBatch' | 'metadata' | 'now'>, tenant: Tenant, type: string, handler: FormatHandler, o: InsertOptions): Promise<void> {
  const labeler = new ExtraLabeler(parseExtraLabels(queryValues(input.query, 'extra_label')));
  const inserted = rowsInserted.labels(type);
  let limitError: LimitExceededError | undefined;
  let limitRejected = 0;
  const invalid = new InvalidRows();
  // store runs one storage call: counts its rows, tells the read side about backfills, and keeps
  // the first limit error for the answer while the rest of the body is still stored.
  const store = async (count: number, add: () => Promise<void>, holdsOlderThan: (ms: number) => boolean): Promise<void> => {
    try {
      await add();
      inserted.inc(count);
      o.onInserted?.(tenant, type, count);
      if (o.onBackfill !== undefined && holdsOlderThan(o.now() - (o.backfillBeforeMs ?? 0))) o.onBackfill();
    } catch (err) {
      if (!(err instanceof LimitExceededError)) throw err;
      limitError ??= err;
      limitRejected++;
    }
  };
  const onBatch = async (rows: MetricRow[]) => {
    if (rows.length === 0) return;
    const toStore = invalid.filter(labeler.isEmpty ? rows : labeler.apply(rows));
    if (toStore.length === 0) return;
    await store(toStore.length, () => o.inserter.addRows(tenant, toStore), (ms) => isBackfill(rows, ms));
  };
  const keyed = isKeyedInserter(o.inserter) ? o.inserter : undefined;
  const onKeyedBatch = async (b: common.KeyedColumns) => {
    if (b.length === 0) return;
    // Rare rows storage would refuse as malformed take the row path, which reports them.
    if (keyed === undefined || hasInvalidTimestamp(b.timestamps, b.length)) return onBatch(b.toRows());
    await store(b.length, () => keyed.addKeyedRows(tenant, b), (ms) => hasTimestampBefore(b.timestamps, b.length, ms));
  };
  const keep = o.metadata;
  const metadata: BodyMetadata | undefined = keep === undefined ? undefined : {
    sink: (u) => keep(tenant, u), recent: o.recentMetadata?.for(tenant), tenantKey: `${tenant.accountID}:${tenant.projectID}`,
  };
  const out = await handler({ ...input, now: o.now, onBatch, onKeyedBatch: labeler.isEmpty ? onKeyedBatch : undefined, metadata }, o);
  const bad = out.errors?.count ?? 0;
  if (bad > 0) rowsInvalid.inc({ type }, bad);
  if (limitRejected > 0) rowsInvalid.inc({ type }, limitRejected);
  if (invalid.count > 0) rowsInvalid.inc({ type }, invalid.count);
  const alsoInvalid = invalid.count > 0 ? `; also ${invalid.describe()}` : '';
  if (out.fatal !== undefined) {
    rowsInvalid.inc({ type });
    throw new InsertError('ERR_INSERT_BAD_DATA', `cannot parse the rest of the request body: ${out.fatal.message}${bad > 0 ? `; also ${out.errors!.describe()}` : ''}${alsoInvalid}`, { cause: out.fatal });
  }
  if (bad > 0) throw new InsertError('ERR_INSERT_BAD_DATA', `${out.errors!.describe()}${alsoInvalid}`);
  if (invalid.count > 0) throw new InsertError('ERR_INSERT_BAD_DATA', invalid.describe());
  if (limitError !== undefined) throw classifyInsertError(limitError);
}

function isBackfill(rows: readonly MetricRow[], threshold: number): boolean {
  for (let i = 0; i < rows.length; i++) if (rows[i]!.timestamp < threshold) return true;
  return false;
}

function hasTimestampBefore(timestamps: Float64Array, n: number, threshold: number): boolean {
  for (let i = 0; i < n; i++) if (timestamps[i]! < threshold) return true;
  return false;
}

/**
 * handleIngest is the fastify handler shape shared by the ingestion routes. A rejected request
 * (400, 413, 415) is logged as a warning naming the route, the client and the reason, at most once
 * per route per `rejections` interval (the line says how many it stands for); 5xx are errors.
 */
export async function handleIngest(req: FastifyRequest, reply: FastifyReply, tenantOf: TenantOf, type: string, handler: FormatHandler, o: InsertOptions, rejections: KeyThrottle): Promise<FastifyReply> {
  try {
    const tenant = typeof tenantOf === 'function' ? tenantOf(req) : tenantOf;
    const declared = Number(req.headers['content-length']);
    if (declared > o.maxRequestBytes) throw new common.BodyTooLargeError('request body', o.maxRequestBytes);
    const body = common.limitBytes(req.raw as AsyncIterable<Buffer>, o.maxRequestBytes, 'request body');
    const contentEncoding = req.headers['content-encoding'];
    await ingestBody({ body, contentEncoding, query: req.query as Record<string, unknown> }, tenant, type, handler, o);
    if (declared > 0) o.onBodyRead?.(declared);
    return reply.code(204).send();
  } catch (err) {
    const e = classifyInsertError(err);
    const route = req.url.split('?')[0]!;
    if (e.status >= 500) o.logger.error({ err }, `cannot insert rows from ${req.method} ${route}`);
    else logRejection(o.logger, rejections, req, route, e);
    // A rejected body may be only partly read; close the connection rather than reuse it mid-body.
    if (!req.raw.complete) reply.header('connection', 'close');
    return reply.code(e.status).type('text/plain').send(e.message);
  }
}

function logRejection(logger: Logger, rejections: KeyThrottle, req: FastifyRequest, route: string, e: InsertError): void {
  const dropped = rejections.take(route);
  if (dropped === undefined) return;
  const port = req.socket.remotePort;
  const client = port === undefined ? req.ip : `${req.ip}:${port}`;
  const more = dropped > 0 ? ` (and ${dropped} more rejected requests to this route in the last ${rejections.intervalMs / 1000}s not logged)` : '';
  logger.warn(`rejected ${req.method} ${route} from ${client} with ${e.status}: ${e.message}${more}`);
}
