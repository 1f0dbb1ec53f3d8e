// Prometheus remote write 1.0: a WriteRequest protobuf (after Snappy decoding, see stream.ts).
//
//   message WriteRequest { repeated TimeSeries timeseries = 1; reserved 2; repeated MetricMetadata metadata = 3; }
//   message TimeSeries   { repeated Label labels = 1; repeated Sample samples = 2;
//                          repeated Exemplar exemplars = 3; repeated Histogram histograms = 4; }
//   message Label        { string name = 1; string value = 2; }
//   message Sample       { double value = 1; int64 timestamp = 2; }
//
// Exemplars and native histograms are accepted and skipped (counted in stats); metadata goes to the
// caller's onMetadata, or is skipped and counted when there is none (metadata.ts). Unknown
// fields are skipped by wire type. A structurally broken message (truncation, bad lengths, bad wire
// types) is a ParseError for the whole request, since nothing after the break can be trusted; a
// series with unusable labels (duplicate names, no labels left) is skipped and counted.

import { ErrorSummary } from '../common/parse-error.ts';
import { isLineFailure } from '../common/line-failure.ts';
import { canonicalLabels, type Label, type Row } from '../common/row.ts';
import type { MetadataSink } from '../common/metadata.ts';
import { readMetricMetadata } from './metadata.ts';
import { ProtoReader, WIRE_FIXED64, WIRE_LEN, WIRE_VARINT } from './proto.ts';

/** RemoteWriteStats counts what a request held besides rows. */
export interface RemoteWriteStats {
  timeseries: number;
  samples: number;
  /** Native histogram samples, which Strata does not store. */
  ignoredHistograms: number;
  ignoredExemplars: number;
  /** Metadata entries skipped (no onMetadata was given). */
  ignoredMetadata: number;
}

/** RemoteWriteResult is the outcome of parsing one WriteRequest. */
export interface RemoteWriteResult {
  readonly rows: Row[];
  /** Series skipped because of their labels; `item` names them as `timeseries[i]`. */
  readonly errors: ErrorSummary;
  readonly stats: RemoteWriteStats;
}

/** newStats returns zeroed counters. */
export function newStats(): RemoteWriteStats {
  return { timeseries: 0, samples: 0, ignoredHistograms: 0, ignoredExemplars: 0, ignoredMetadata: 0 };
}

/** parse decodes a whole WriteRequest into rows. Throws ParseError when the message is malformed. */
export function parse(body: Uint8Array, onMetadata?: MetadataSink): RemoteWriteResult {
  const rows: Row[] = [];
  const errors = new ErrorSummary();
  const stats = newStats();
  for (const seriesRows of seriesRowsOf(body, stats, errors, onMetadata)) {
    for (let i = 0; i < seriesRows.length; i++) rows.push(seriesRows[i]!);
  }
  return { rows, errors, stats };
}

/**
 * seriesRowsOf decodes a WriteRequest lazily, yielding the rows of one time series at a time (all
 * sharing one Labels array), so a caller can batch them into storage with bounded memory. Stats and
 * errors are updated as it goes; metadata entries go to onMetadata as they are met. Throws
 * ParseError when the message is malformed; the series yielded before that point were well-formed.
 */
export function* seriesRowsOf(body: Uint8Array, stats: RemoteWriteStats, errors: ErrorSummary, onMetadata?: MetadataSink): Generator<Row[]> {
  const r = new ProtoReader(body);
  const cache = new LabelCache();
  let index = 0;
  while (r.pos < r.end) {
    const tag = r.uint32();
    const field = tag >>> 3;
    const wt = tag & 7;
    if (field === 1 && wt === WIRE_LEN) {
      const end = r.len();
      const rows = readTimeSeries(r, end, stats, errors, index++, cache);
      if (rows.length > 0) yield rows;
    } else if (field === 3 && wt === WIRE_LEN) {
      metadataField(r, stats, onMetadata);
    } else {
      r.skip(wt);
    }
  }
}

/** metadataField reads a WriteRequest's metadata entry (its tag read) into onMetadata, or skips and counts it. */
export function metadataField(r: ProtoReader, stats: RemoteWriteStats, onMetadata: MetadataSink | undefined): void {
  if (onMetadata === undefined) {
    stats.ignoredMetadata++;
    r.skip(WIRE_LEN);
    return;
  }
  const end = r.len();
  const u = readMetricMetadata(r, end);
  if (u !== undefined) onMetadata(u);
}

function readTimeSeries(r: ProtoReader, end: number, stats: RemoteWriteStats, errors: ErrorSummary, index: number, cache: LabelCache): Row[] {
  const outerEnd = r.end;
  r.end = end;
  const labels: Label[] = [];
  const samples: number[] = []; // start offsets of Sample messages, decoded once labels are known
  let keyStart = -1;
  let keyEnd = -1;
  let contiguous = true;
  while (r.pos < end) {
    const tagStart = r.pos;
    const tag = r.uint32();
    const field = tag >>> 3;
    const wt = tag & 7;
    if (field === 1 && wt === WIRE_LEN) {
      const lEnd = r.len();
      const lStart = r.pos;
      labels.push(cache.get(r, lEnd) ?? cache.put(lStart, lEnd, readLabel(r, lEnd)));
      if (keyStart < 0) keyStart = tagStart;
      else if (tagStart !== keyEnd) contiguous = false;
      keyEnd = lEnd;
    } else if (field === 2 && wt === WIRE_LEN) {
      samples.push(tagStart);
      r.pos = r.len();
    } else {
      if (field === 3 && wt === WIRE_LEN) stats.ignoredExemplars++;
      if (field === 4 && wt === WIRE_LEN) stats.ignoredHistograms++;
      r.skip(wt);
    }
  }
  r.end = outerEnd;
  stats.timeseries++;
  if (samples.length === 0) return [];
  let canonical: Label[];
  try {
    canonical = canonicalLabels(labels, 'reject');
    if (canonical.length === 0) return skipSeries(errors, index, 'series has no labels', samples.length);
  } catch (e) {
    if (!isLineFailure(e)) throw e;
    return skipSeries(errors, index, e.reason, samples.length);
  }
  const rawKey = contiguous ? r.buf.toString('latin1', keyStart, keyEnd) : undefined;
  const rows: Row[] = new Array(samples.length);
  const s: SampleOut = new Float64Array(2);
  for (let i = 0; i < samples.length; i++) {
    r.pos = samples[i]!;
    r.uint32(); // the tag, checked above
    readSample(r, r.len(), s);
    rows[i] = { labels: canonical, timestamp: s[SAMPLE_TS]!, value: s[SAMPLE_VALUE]!, rawKey };
  }
  r.pos = end;
  stats.samples += rows.length;
  return rows;
}

function skipSeries(errors: ErrorSummary, index: number, reason: string, samples: number): Row[] {
  errors.add(`${reason}; ${samples} samples dropped`, { item: `timeseries[${index}]` });
  return [];
}

/** readLabel decodes the Label message r[pos, end) (its tag and length read) and leaves r at end. */
export function readLabel(r: ProtoReader, end: number): Label {
  const outerEnd = r.end;
  r.end = end;
  let name = '';
  let value = '';
  while (r.pos < end) {
    const tag = r.uint32();
    const field = tag >>> 3;
    const wt = tag & 7;
    if (field === 1 && wt === WIRE_LEN) name = r.string();
    else if (field === 2 && wt === WIRE_LEN) value = r.string();
    else r.skip(wt);
  }
  r.end = outerEnd;
  return { name, value };
}

/**
 * SampleOut receives a Sample message's fields: the timestamp at SAMPLE_TS, the value at
 * SAMPLE_VALUE (KeyedColumns.pushRow's layout). A reused typed array, not an object: a float64
 * stored there is never boxed (an object field cost a heap number per sample once V8 generalised
 * it), and it keeps a NaN's bits (staleness markers) as the batch's own Float64Array does.
 */
export type SampleOut = Float64Array;
export const SAMPLE_TS = 0;
export const SAMPLE_VALUE = 1;

/** readSample decodes the Sample message r[pos, end) (its tag and length read) into `into` and leaves r at end. */
export function readSample(r: ProtoReader, end: number, into: SampleOut): void {
  const outerEnd = r.end;
  r.end = end;
  into[SAMPLE_VALUE] = 0;
  into[SAMPLE_TS] = 0;
  while (r.pos < end) {
    const tag = r.uint32();
    const field = tag >>> 3;
    const wt = tag & 7;
    if (field === 1 && wt === WIRE_FIXED64) into[SAMPLE_VALUE] = r.double();
    else if (field === 2 && wt === WIRE_VARINT) into[SAMPLE_TS] = r.int64();
    else r.skip(wt);
  }
  r.end = outerEnd;
}

// LabelCache hands out one Label object per distinct label encoding within a request: the series of
// one WriteRequest repeat the same job/instance/… pairs over and over, and reusing the object
// saves decoding two strings per label. Keyed by an FNV-1a hash of the label's bytes; a hit is
// confirmed byte by byte, a collision just falls back to decoding.
class LabelCache {
  readonly #map = new Map<number, { label: Label; start: number; end: number }>();

  get(r: ProtoReader, end: number): Label | undefined {
    const b = r.buf;
    const start = r.pos;
    let h = 0x811c9dc5;
    for (let i = start; i < end; i++) h = Math.imul(h ^ b[i]!, 0x01000193);
    this.#hash = h;
    const hit = this.#map.get(h);
    if (hit === undefined || hit.end - hit.start !== end - start) return undefined;
    for (let i = 0; i < end - start; i++) if (b[hit.start + i] !== b[start + i]) return undefined;
    r.pos = end;
    return hit.label;
  }

  // put remembers the label just decoded from [start, end) under the hash computed by get.
  put(start: number, end: number, label: Label): Label {
    if (!this.#map.has(this.#hash)) this.#map.set(this.#hash, { label, start, end });
    return label;
  }

  #hash = 0;
}
