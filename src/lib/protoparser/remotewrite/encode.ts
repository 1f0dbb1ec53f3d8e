// WriteRequest encoder: used by tests and by the cluster to forward rows in the remote-write wire
// format. Sizes are computed before writing, so each series is written once into one buffer.

import { compressSync } from 'snappy';
import type { MetadataUpdate } from '../common/metadata.ts';
import type { Labels } from '../common/row.ts';
import { METADATA_TYPES } from './metadata.ts';
import { int64Size, ProtoWriter, uvarintSize, WIRE_FIXED64, WIRE_LEN, WIRE_VARINT } from './proto.ts';

/** WriteSeries is one time series to encode: labels and parallel arrays of ms timestamps and values. */
export interface WriteSeries {
  readonly labels: Labels;
  readonly timestamps: ArrayLike<number>;
  readonly values: ArrayLike<number>;
}

/**
 * encodeWriteRequest encodes series as a WriteRequest protobuf (not compressed). Timestamps must
 * be safe integers; values keep their exact bits (staleness markers survive when values are held
 * in a Float64Array). Empty strings and zero timestamps are omitted, as protobuf defaults.
 */
export function encodeWriteRequest(series: Iterable<WriteSeries>, metadata: readonly MetadataUpdate[] = []): Buffer {
  const w = new ProtoWriter();
  for (const s of series) writeTimeSeries(w, s);
  for (const m of metadata) writeMetadata(w, m);
  return Buffer.from(w.finish());
}

/** encodeWriteRequestSnappy encodes and Snappy-compresses (block format), ready to POST. */
export function encodeWriteRequestSnappy(series: Iterable<WriteSeries>, metadata: readonly MetadataUpdate[] = []): Buffer {
  return compressSync(encodeWriteRequest(series, metadata));
}

// writeMetadata writes one MetricMetadata entry (WriteRequest field 3); absent fields are left out.
function writeMetadata(w: ProtoWriter, m: MetadataUpdate): void {
  const type = METADATA_TYPES.indexOf(m.type ?? 'unknown');
  const strings = [[2, m.metric], [4, m.help ?? ''], [5, m.unit ?? '']] as const;
  const bytes = strings.map(([f, s]) => [f, Buffer.from(s, 'utf8')] as const);
  const size = (type > 0 ? 1 + uvarintSize(type) : 0) + bytes.reduce((n, [, b]) => n + fieldSize(b.length), 0);
  w.tag(3, WIRE_LEN);
  w.uvarint(size);
  if (type > 0) {
    w.tag(1, WIRE_VARINT);
    w.uvarint(type);
  }
  for (const [f, b] of bytes) {
    if (b.length === 0) continue;
    w.tag(f, WIRE_LEN);
    w.bytes(b);
  }
}

const fieldSize = (len: number): number => (len === 0 ? 0 : 1 + uvarintSize(len) + len);
const sampleSize = (t: number): number => 9 + (t === 0 ? 0 : 1 + int64Size(t));

function writeTimeSeries(w: ProtoWriter, s: WriteSeries): void {
  const n = s.timestamps.length;
  if (n !== s.values.length) throw new RangeError(`series has ${n} timestamps but ${s.values.length} values`);
  const names = s.labels.map((l) => Buffer.from(l.name, 'utf8'));
  const values = s.labels.map((l) => Buffer.from(l.value, 'utf8'));
  let total = 0;
  for (let i = 0; i < names.length; i++) {
    const size = fieldSize(names[i]!.length) + fieldSize(values[i]!.length);
    total += 1 + uvarintSize(size) + size;
  }
  for (let i = 0; i < n; i++) {
    const t = s.timestamps[i]!;
    if (!Number.isSafeInteger(t)) throw new RangeError(`timestamp ${t} is not a safe integer`);
    const size = sampleSize(t);
    total += 1 + uvarintSize(size) + size;
  }
  w.tag(1, WIRE_LEN);
  w.uvarint(total);
  for (let i = 0; i < names.length; i++) {
    const name = names[i]!;
    const value = values[i]!;
    w.tag(1, WIRE_LEN);
    w.uvarint(fieldSize(name.length) + fieldSize(value.length));
    if (name.length > 0) {
      w.tag(1, WIRE_LEN);
      w.bytes(name);
    }
    if (value.length > 0) {
      w.tag(2, WIRE_LEN);
      w.bytes(value);
    }
  }
  for (let i = 0; i < n; i++) {
    const t = s.timestamps[i]!;
    w.tag(2, WIRE_LEN);
    w.uvarint(sampleSize(t));
    w.tag(1, WIRE_FIXED64);
    w.double(s.values[i]!);
    if (t !== 0) {
      w.tag(2, WIRE_VARINT);
      w.int64(t);
    }
  }
}
