// The `metadata` of a remote-write WriteRequest (field 3), which Prometheus and vmagent send every
// metadata_config.send_interval:
//
//   message MetricMetadata {
//     enum MetricType { UNKNOWN = 0; COUNTER = 1; GAUGE = 2; HISTOGRAM = 3; GAUGEHISTOGRAM = 4;
//                       SUMMARY = 5; INFO = 6; STATESET = 7; }
//     MetricType type = 1; string metric_family_name = 2; string help = 4; string unit = 5;
//   }

import type { MetadataUpdate, MetricType } from '../common/metadata.ts';
import { ProtoReader, WIRE_LEN, WIRE_VARINT } from './proto.ts';

/** METADATA_TYPES maps the MetricType enum to its name; index = enum value. */
export const METADATA_TYPES: readonly MetricType[] = ['unknown', 'counter', 'gauge', 'histogram', 'gaugehistogram', 'summary', 'info', 'stateset'];

/**
 * readMetricMetadata decodes the MetricMetadata message r[pos, end) and leaves r at end. A message
 * without a family name says nothing and gives undefined; an enum value this code does not know is
 * `unknown`. Throws ParseError for a broken message.
 */
export function readMetricMetadata(r: ProtoReader, end: number): MetadataUpdate | undefined {
  const outerEnd = r.end;
  r.end = end;
  let type = 0;
  let metric = '';
  let help = '';
  let unit = '';
  while (r.pos < end) {
    const tag = r.uint32();
    const field = tag >>> 3;
    const wt = tag & 7;
    if (field === 1 && wt === WIRE_VARINT) type = r.uint32();
    else if (field === 2 && wt === WIRE_LEN) metric = r.string();
    else if (field === 4 && wt === WIRE_LEN) help = r.string();
    else if (field === 5 && wt === WIRE_LEN) unit = r.string();
    else r.skip(wt);
  }
  r.end = outerEnd;
  if (metric === '') return undefined;
  return { metric, type: METADATA_TYPES[type] ?? 'unknown', help, unit };
}
