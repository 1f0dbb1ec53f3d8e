import { boolFlag, sizeFlag, stringFlag } from '../../lib/flags/index.ts';
import { type Logger } from '../../lib/logger/index.ts';
import { type Inserter } from '../../lib/storageapi/index.ts';
import { type InsertOptions } from './ingest.ts';

const maxInsertRequestSize = sizeFlag('maxInsertRequestSize', '32MiB', 'Largest accepted ingestion request body, as sent and after decompression; larger ones get 413');
const influxMeasurementFieldSeparator = stringFlag('influxMeasurementFieldSeparator', '_', 'Separator between an Influx measurement and field name in the resulting metric name');
const influxSkipSingleField = boolFlag('influxSkipSingleField', false, 'Whether to name a single-field Influx line after its measurement only, leaving out the field name');
const influxSkipMeasurement = boolFlag('influxSkipMeasurement', false, 'Whether to leave the measurement out of Influx metric names (the field name alone)');
const datadogSanitizeMetricName = boolFlag('datadog.sanitizeMetricName', true, 'Whether to sanitize agent-format (Datadog) metric and tag names the way Datadog does');
const graphiteListenAddr = stringFlag('graphiteListenAddr', '', 'TCP address for Graphite plaintext lines ("<metric>;tag=value <value> <ts>"), e.g. ":2003"; empty disables');
const opentsdbListenAddr = stringFlag('opentsdbListenAddr', '', 'TCP address for OpenTSDB telnet "put" lines, e.g. ":4242"; empty disables');
const opentsdbHTTPListenAddr = stringFlag('opentsdbHTTPListenAddr', '', 'TCP address for OpenTSDB HTTP POST /api/put, e.g. ":4242"; empty disables');

/** insertOptionsFromFlags maps the ingestion flags to InsertOptions. */
export function insertOptionsFromFlags(inserter: Inserter, logger: Logger): InsertOptions {
  return {
    inserter,
    logger,
    maxRequestBytes: maxInsertRequestSize.value,
    now: Date.now,
    influx: {
      measurementFieldSeparator: influxMeasurementFieldSeparator.value,
      skipSingleField: influxSkipSingleField.value,
      skipMeasurement: influxSkipMeasurement.value,
    },
    agentSanitizeMetricName: datadogSanitizeMetricName.value,
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
