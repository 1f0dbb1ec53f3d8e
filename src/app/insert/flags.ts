import { boolFlag, intFlag, sizeFlag, stringFlag } from '../../lib/flags/index.ts';
import type { Logger } from '../../lib/logger/index.ts';
import * as common from '../../lib/protoparser/common/index.ts';
import type { Inserter } from '../../lib/storageapi/index.ts';
import type { InsertOptions } from './ingest.ts';
import { KeyDictionaries, ParsePool, RecentMetadata } from '../../lib/keyedparse/index.ts';

const maxInsertRequestSize = sizeFlag('maxInsertRequestSize', '32MiB', 'Largest accepted ingestion request body, as sent and after decompression; larger ones get 413');
const influxMeasurementFieldSeparator = stringFlag('influxMeasurementFieldSeparator', '_', 'Separator between an Influx measurement and field name in the resulting metric name');
const influxSkipSingleField = boolFlag('influxSkipSingleField', false, 'Whether to name a single-field Influx line after its measurement only, leaving out the field name');
const influxSkipMeasurement = boolFlag('influxSkipMeasurement', false, 'Whether to leave the measurement out of Influx metric names (the field name alone)');
const datadogSanitizeMetricName = boolFlag('datadog.sanitizeMetricName', true, 'Whether to sanitize agent-format (Datadog) metric and tag names the way Datadog does');
const parseWorkers = intFlag('insert.parseWorkers', 0, 'Worker threads that parse Prometheus text bodies (/api/v1/import/prometheus) while the event loop stores rows; 0 parses on the event loop. Each worker costs about 40 MiB of memory; more than one helps only with more than two free CPU cores');
const enableMetadata = boolFlag('enableMetadata', true, 'Whether to keep the metric metadata ingestion carries (HELP, TYPE and UNIT lines of Prometheus text, the metadata of remote write) for /api/v1/metadata, which Grafana shows in its metric browser; see also -storage.maxMetadataStorageSize');
const graphiteListenAddr = stringFlag('graphiteListenAddr', '', 'TCP address for Graphite plaintext lines ("<metric>;tag=value <value> <ts>"), e.g. ":2003"; empty disables');
const opentsdbListenAddr = stringFlag('opentsdbListenAddr', '', 'TCP address for OpenTSDB telnet "put" lines, e.g. ":4242"; empty disables');
const opentsdbHTTPListenAddr = stringFlag('opentsdbHTTPListenAddr', '', 'TCP address for OpenTSDB HTTP POST /api/put, e.g. ":4242"; empty disables');

/**
 * insertOptionsFromFlags maps the ingestion flags to InsertOptions. seriesKeyBytes (a memory budget
 * share) bounds the series-key dictionaries (Prometheus text, remote write and influx on the event loop,
 * and each parse worker's); 0 leaves them out, and with them the parse workers (every line or
 * series then builds its labels). metadata keeps the metric metadata bodies carry, unless
 * -enableMetadata=false. Close the returned parsePool at shutdown.
 */
export function insertOptionsFromFlags(inserter: Inserter, logger: Logger, seriesKeyBytes = 0, metadata?: InsertOptions['metadata']): InsertOptions {
  if (parseWorkers.value < 0) throw new Error(`-insert.parseWorkers must be 0 or more; got ${parseWorkers.value}`);
  const workers = seriesKeyBytes > 0 ? parseWorkers.value : 0;
  // One share each: Prometheus text, remote write, influx (split by db), and every parse worker.
  const share = seriesKeyBytes / (workers + 3);
  return {
    inserter,
    logger,
    ...(seriesKeyBytes > 0 ? {
      prometheusKeys: new common.SeriesKeyDictionary(share), remoteWriteKeys: new common.SeriesKeyDictionary(share), influxKeys: new KeyDictionaries(share),
    } : {}),
    ...(workers > 0 ? { parsePool: new ParsePool({ workers, keyBytesPerWorker: share, logger }) } : {}),
    maxRequestBytes: maxInsertRequestSize.value,
    now: Date.now,
    influx: {
      measurementFieldSeparator: influxMeasurementFieldSeparator.value,
      skipSingleField: influxSkipSingleField.value,
      skipMeasurement: influxSkipMeasurement.value,
    },
    agentSanitizeMetricName: datadogSanitizeMetricName.value,
    ...(metadata !== undefined && enableMetadata.value ? { metadata, recentMetadata: new RecentMetadata() } : {}),
  };
}

/** ReceiverAddresses are the optional network receivers; "" means off. */
export interface ReceiverAddresses {
  readonly graphite: string;
  readonly opentsdb: string;
  readonly opentsdbHTTP: string;
}

export function receiverAddressesFromFlags(): ReceiverAddresses {
  return { graphite: graphiteListenAddr.value, opentsdb: opentsdbListenAddr.value, opentsdbHTTP: opentsdbHTTPListenAddr.value };
}
