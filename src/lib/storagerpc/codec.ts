// Encoders and decoders of the values carried by RPC messages (FORMAT.md, "Storage node RPC",
// "Values"): strings, tenants, labels, matchers, queries, time ranges, cardinality statistics.
// They write to and read from the storage engine's ByteWriter/ByteReader: one byte codec in the
// repository. Every decoder checks bounds before it allocates, so a hostile count costs nothing;
// bad input throws CorruptDataError (from ByteReader) or RpcProtocolError.

import { ByteReader, type ByteWriter } from '../bytes/index.ts';
import type {
  Label, LabelMatcher, Labels, MatchType, NameCount, SearchQuery, Tenant, TimeRange, TsdbStatus, TsdbStatusQuery,
} from '../storageapi/api.ts';

/** RpcProtocolError reports bytes that break the protocol; the connection that sent them is closed. */
export class RpcProtocolError extends Error {
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = 'RpcProtocolError';
  }
}

/** reader returns a ByteReader over a frame body (a Buffer, so strings decode without copies). */
export function reader(buf: Buffer, what: string, start = 0): ByteReader {
  return new ByteReader(buf, what, start);
}

/** writeString appends uvarint byteLength and the UTF-8 bytes of s (a lone surrogate becomes U+FFFD). */
export function writeString(w: ByteWriter, s: string): void {
  const n = Buffer.byteLength(s, 'utf8');
  w.writeUvarint(n);
  w.ensure(n);
  w.buf.write(s, w.pos, n, 'utf8');
  w.pos += n;
}

/** readString reads what writeString wrote; invalid UTF-8 decodes to U+FFFD. */
export function readString(r: ByteReader): string {
  const n = r.readUvarint();
  r.need(n);
  const start = r.pos;
  r.pos += n;
  return (r.buf as Buffer).toString('utf8', start, start + n);
}

/** readCount reads a uvarint count of items taking at least minBytes each, checked against what is left. */
export function readCount(r: ByteReader, what: string, minBytes = 1): number {
  const n = r.readUvarint();
  if (n * minBytes > r.remaining()) throw new RpcProtocolError(`${what} count ${n} does not fit the ${r.remaining()} bytes left of ${r.what}`);
  return n;
}

/**
 * writeLimit appends a limit or cap where 0 means none (limit, maxSeries, topN): what the engine
 * does with any number, as a uvarint: not above 0 (or NaN) is 0, a fraction rounds down (a count
 * exceeds n.5 exactly when it exceeds n), above 2^53 is 2^53.
 */
export function writeLimit(w: ByteWriter, v: number): void {
  w.writeUvarint(v > 0 ? Math.min(Math.floor(v), 2 ** 53) : 0);
}

/** writeTenant appends a tenant the caller checked (storageapi checkTenant): two u32s. */
export function writeTenant(w: ByteWriter, t: Tenant): void {
  w.writeU32(t.accountID);
  w.writeU32(t.projectID);
}

export function readTenant(r: ByteReader): Tenant {
  return { accountID: r.readU32(), projectID: r.readU32() };
}

export function writeTimeRange(w: ByteWriter, tr: TimeRange): void {
  w.writeF64(tr.minTimestamp);
  w.writeF64(tr.maxTimestamp);
}

export function readTimeRange(r: ByteReader): TimeRange {
  return { minTimestamp: r.readF64(), maxTimestamp: r.readF64() };
}

export function writeLabels(w: ByteWriter, labels: Labels): void {
  w.writeUvarint(labels.length);
  for (const l of labels) {
    writeString(w, l.name);
    writeString(w, l.value);
  }
}

export function readLabels(r: ByteReader): Label[] {
  const n = readCount(r, 'label', 2);
  const out: Label[] = new Array(n);
  for (let i = 0; i < n; i++) out[i] = { name: readString(r), value: readString(r) };
  return out;
}

const MATCH_TYPES: readonly MatchType[] = ['=', '!=', '=~', '!~'];

/** writeMatcherSets appends the OR-ed sets of AND-ed matchers; a type is one byte (index in MATCH_TYPES + 1). */
export function writeMatcherSets(w: ByteWriter, sets: readonly (readonly LabelMatcher[])[]): void {
  w.writeUvarint(sets.length);
  for (const set of sets) {
    w.writeUvarint(set.length);
    for (const m of set) {
      // An unknown type is sent as 0: the node answers with the MatcherError the engine throws for it.
      w.writeU8(MATCH_TYPES.indexOf(m.type) + 1);
      writeString(w, m.name);
      writeString(w, m.value);
    }
  }
}

export function readMatcherSets(r: ByteReader): LabelMatcher[][] {
  const nSets = readCount(r, 'matcher set');
  const sets: LabelMatcher[][] = new Array(nSets);
  for (let i = 0; i < nSets; i++) {
    const n = readCount(r, 'matcher', 3);
    const set: LabelMatcher[] = new Array(n);
    for (let j = 0; j < n; j++) {
      const code = r.readU8();
      if (code > MATCH_TYPES.length) throw new RpcProtocolError(`unknown matcher type code ${code} in ${r.what}`);
      // Code 0 keeps the client's unknown type unknown, so the engine rejects it with its own MatcherError.
      const type = (code === 0 ? '?' : MATCH_TYPES[code - 1]) as MatchType;
      set[j] = { type, name: readString(r), value: readString(r) };
    }
    sets[i] = set;
  }
  return sets;
}

export function writeSearchQuery(w: ByteWriter, q: SearchQuery): void {
  writeTenant(w, q.tenant);
  writeTimeRange(w, q.timeRange);
  writeLimit(w, q.maxSeries);
  writeMatcherSets(w, q.matcherSets);
}

export function readSearchQuery(r: ByteReader): SearchQuery {
  const tenant = readTenant(r);
  const timeRange = readTimeRange(r);
  const maxSeries = r.readUvarint();
  return { tenant, timeRange, maxSeries, matcherSets: readMatcherSets(r) };
}

export function writeTsdbStatusQuery(w: ByteWriter, q: TsdbStatusQuery): void {
  writeTenant(w, q.tenant);
  w.writeF64(q.date);
  writeLimit(w, q.topN);
  writeString(w, q.focusLabel);
  writeMatcherSets(w, q.matcherSets);
}

export function readTsdbStatusQuery(r: ByteReader): TsdbStatusQuery {
  const tenant = readTenant(r);
  const date = r.readF64();
  const topN = r.readUvarint();
  const focusLabel = readString(r);
  return { tenant, date, topN, focusLabel, matcherSets: readMatcherSets(r) };
}

export function writeStrings(w: ByteWriter, items: readonly string[]): void {
  w.writeUvarint(items.length);
  for (const s of items) writeString(w, s);
}

export function readStrings(r: ByteReader): string[] {
  const n = readCount(r, 'string');
  const out: string[] = new Array(n);
  for (let i = 0; i < n; i++) out[i] = readString(r);
  return out;
}

function writeNameCounts(w: ByteWriter, items: readonly NameCount[]): void {
  w.writeUvarint(items.length);
  for (const it of items) {
    writeString(w, it.name);
    w.writeUvarint(it.count);
  }
}

function readNameCounts(r: ByteReader): NameCount[] {
  const n = readCount(r, 'name count', 2);
  const out: NameCount[] = new Array(n);
  for (let i = 0; i < n; i++) out[i] = { name: readString(r), count: r.readUvarint() };
  return out;
}

export function writeTsdbStatus(w: ByteWriter, s: TsdbStatus): void {
  w.writeUvarint(s.totalSeries);
  w.writeUvarint(s.totalLabelValuePairs);
  writeNameCounts(w, s.seriesCountByMetricName);
  writeNameCounts(w, s.seriesCountByLabelName);
  writeNameCounts(w, s.seriesCountByFocusLabelValue);
  writeNameCounts(w, s.seriesCountByLabelValuePair);
  writeNameCounts(w, s.labelValueCountByLabelName);
}

export function readTsdbStatus(r: ByteReader): TsdbStatus {
  return {
    totalSeries: r.readUvarint(),
    totalLabelValuePairs: r.readUvarint(),
    seriesCountByMetricName: readNameCounts(r),
    seriesCountByLabelName: readNameCounts(r),
    seriesCountByFocusLabelValue: readNameCounts(r),
    seriesCountByLabelValuePair: readNameCounts(r),
    labelValueCountByLabelName: readNameCounts(r),
  };
}

/** expectEnd throws when a message body has bytes its decoder did not read. */
export function expectEnd(r: ByteReader): void {
  if (r.remaining() !== 0) throw new RpcProtocolError(`${r.remaining()} unexpected bytes at the end of ${r.what}`);
}
