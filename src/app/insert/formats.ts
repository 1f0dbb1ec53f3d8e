import { lazyImport } from '../../lib/process/lazy-import.ts';
import * as common from '../../lib/protoparser/common/index.ts';
import type { CsvImportFormat } from '../../lib/protoparser/csv/index.ts';
import type { InfluxPrecision } from '../../lib/protoparser/influx/index.ts';
import { InsertError } from './errors.ts';
import { type FormatHandler, type IngestInput, queryValue } from './ingest.ts';

// One handler per wire format: turn the body into rows via the format's pure parser and stream
// adapter, hand them to onBatch, and report bad lines. The route table (routes.ts) binds paths.
//
// A format's parser module is imported on the first request of that format, not at start (issue 18
// item 4: the parsers are ~50 modules and register no flags). The handler awaits the import before
// it reads the body, which waits in the socket meanwhile; later requests get the settled promise.
// Only `common` (errors, byte streams, key dictionaries; needed at start anyway) is imported here.
const prometheusParser = lazyImport(() => import('../../lib/protoparser/prometheus/index.ts'));
const remoteWriteParser = lazyImport(() => import('../../lib/protoparser/remotewrite/index.ts'));
const influxParser = lazyImport(() => import('../../lib/protoparser/influx/index.ts'));
const jsonLineParser = lazyImport(() => import('../../lib/protoparser/jsonline/index.ts'));
const csvParser = lazyImport(() => import('../../lib/protoparser/csv/index.ts'));
const nativeParser = lazyImport(() => import('../../lib/protoparser/native/index.ts'));
const agentParser = lazyImport(() => import('../../lib/protoparser/agentfmt/index.ts'));
const openTsdbHttpParser = lazyImport(() => import('../../lib/protoparser/opentsdbhttp/index.ts'));

/**
 * prometheusText: /api/v1/import/prometheus — text exposition lines, optional ms timestamps. Parsed on
 * the parse pool when there is one, else keyed on the event loop, else into rows (see InsertOptions).
 */
export const prometheusText: FormatHandler = async (i, o) => {
  const prometheus = await prometheusParser();
  const base = { contentEncoding: i.contentEncoding, maxDecodedBytes: o.maxRequestBytes, now: i.now };
  const m = i.metadata;
  if (i.onKeyedBatch !== undefined && o.parsePool?.available === true) {
    return o.parsePool.parsePrometheus(i.body, { ...base, onBatch: i.onKeyedBatch, metadata: m && { sink: m.sink, tenantKey: m.tenantKey } });
  }
  const metadata = m && new prometheus.MetadataCapture(m.sink, m.recent);
  if (i.onKeyedBatch !== undefined && o.prometheusKeys !== undefined) return prometheus.streamPrometheusKeyed(i.body, { ...base, keys: o.prometheusKeys, onBatch: i.onKeyedBatch, metadata });
  return prometheus.streamPrometheus(i.body, { ...base, onBatch: i.onBatch, metadata });
};

/** remoteWrite: /api/v1/write — snappy-compressed protobuf WriteRequest (keyed like prometheusText when it can). */
export const remoteWrite: FormatHandler = async (i, o) => {
  const remotewrite = await remoteWriteParser();
  const base = { contentEncoding: i.contentEncoding, maxBodyBytes: o.maxRequestBytes, maxDecodedBytes: o.maxRequestBytes, onMetadata: i.metadata?.sink };
  const sum = i.onKeyedBatch !== undefined && o.remoteWriteKeys !== undefined
    ? await remotewrite.importRemoteWriteKeyed(i.body, { ...base, keys: o.remoteWriteKeys, onBatch: i.onKeyedBatch })
    : await remotewrite.importRemoteWrite(i.body, { ...base, onBatch: i.onBatch });
  return { errors: sum.errors, fatal: sum.error };
};

/** influxLine: /write, /influx/write, /influx/api/v2/write — `db` (or v2 `bucket`) and `precision` args; keyed when it can. */
export const influxLine: FormatHandler = async (i, o) => {
  const influx = await influxParser();
  const precisionArg = queryValue(i.query, 'precision');
  let precision: InfluxPrecision | undefined;
  try {
    precision = precisionArg === undefined ? undefined : influx.parsePrecision(precisionArg);
  } catch (err) {
    throw new InsertError('ERR_INSERT_BAD_ARG', `invalid "precision" arg: ${(err as Error).message}`, { cause: err });
  }
  const db = queryValue(i.query, 'db') ?? queryValue(i.query, 'bucket');
  const base = {
    contentEncoding: i.contentEncoding, maxDecodedBytes: o.maxRequestBytes, now: i.now,
    ...(precision === undefined ? {} : { precision }), ...(db === undefined ? {} : { db }),
    measurementFieldSeparator: o.influx.measurementFieldSeparator, skipSingleField: o.influx.skipSingleField, skipMeasurement: o.influx.skipMeasurement,
  };
  const keys = i.onKeyedBatch === undefined ? undefined : o.influxKeys?.for(db ?? '');
  if (keys !== undefined && i.onKeyedBatch !== undefined) return influx.streamInfluxKeyed(i.body, { ...base, keys, onBatch: i.onKeyedBatch });
  return influx.streamInflux(i.body, { ...base, onBatch: i.onBatch });
};

/**
 * JSON_LINE_KEY_BYTES bounds the series-key dictionary of one JSON-lines body (trimmed between
 * batches past it).
 */
export const JSON_LINE_KEY_BYTES = 1 << 20;

/**
 * jsonLines: /api/v1/import — `{"metric":{…},"values":[…],"timestamps":[…]}` per line; keyed
 * when it can. A line carries a whole series, so its key is found once for all its samples: the
 * dictionary serves one body only (across bodies it would save little and hold memory for good).
 */
export const jsonLines: FormatHandler = async (i, o) => {
  const jsonline = await jsonLineParser();
  const base = { contentEncoding: i.contentEncoding, maxDecodedBytes: o.maxRequestBytes };
  if (i.onKeyedBatch !== undefined) {
    return jsonline.streamJsonLinesKeyed(i.body, { ...base, keys: new common.SeriesKeyDictionary(JSON_LINE_KEY_BYTES), onBatch: i.onKeyedBatch });
  }
  return jsonline.streamJsonLines(i.body, { ...base, onBatch: i.onBatch });
};

/** csvRows: /api/v1/import/csv?format=<col>:<type>:<name>,… */
export const csvRows: FormatHandler = async (i, o) => {
  const csv = await csvParser();
  const arg = queryValue(i.query, 'format');
  if (arg === undefined || arg === '') throw new InsertError('ERR_INSERT_BAD_ARG', 'missing "format" arg: it lists the CSV columns, e.g. format=1:metric:temperature,2:label:city,3:time:unix_s');
  let format: CsvImportFormat;
  try {
    format = csv.parseFormat(arg);
  } catch (err) {
    throw new InsertError('ERR_INSERT_BAD_ARG', `invalid "format" arg: ${(err as Error).message}`, { cause: err });
  }
  return csv.streamCsv(i.body, { contentEncoding: i.contentEncoding, maxDecodedBytes: o.maxRequestBytes, format, now: i.now, onBatch: i.onBatch });
};

/** nativeBlocks: /api/v1/import/native — Strata's native block format (native/FORMAT.md). */
export const nativeBlocks: FormatHandler = async (i, o) => {
  const native = await nativeParser();
  const sum = await native.streamNative(i.body, { contentEncoding: i.contentEncoding, maxDecodedBytes: o.maxRequestBytes, onBatch: i.onBatch });
  return { fatal: sum.error };
};

/** agentSeries: /agentfmt/api/v1/series — Datadog-style `{"series":[…]}`. */
export const agentSeries: FormatHandler = async (i, o) => {
  const agentfmt = await agentParser();
  const body = await readWhole(i, o.maxRequestBytes);
  const res = agentfmt.parse(body, { now: i.now, sanitizeMetricName: o.agentSanitizeMetricName });
  await deliver(res.rows, i);
  return { errors: res.errors };
};

/** openTsdbPut: POST /api/put on -opentsdbHTTPListenAddr — JSON object or array of data points. */
export const openTsdbPut: FormatHandler = async (i, o) => {
  const opentsdbhttp = await openTsdbHttpParser();
  const body = await readWhole(i, o.maxRequestBytes);
  const res = opentsdbhttp.parse(body, { now: i.now });
  await deliver(res.rows, i);
  return { errors: res.errors };
};

function readWhole(i: IngestInput, max: number): Promise<Buffer> {
  return common.readDecodedBody(i.body, i.contentEncoding, max, max);
}

async function deliver(rows: readonly common.Row[], i: IngestInput): Promise<void> {
  for (let k = 0; k < rows.length; k += common.DEFAULT_BATCH_SIZE) await i.onBatch(rows.slice(k, k + common.DEFAULT_BATCH_SIZE));
}
