import zlib from 'node:zlib';
import { BodyTooLargeError, ErrorSummary, ParseError, UnsupportedEncodingError } from '../common/parse-error.ts';
import { decodeSnappyInto, snappyDecodedLength } from '../common/snappy.ts';
import { decodeSnappyBlock, DEFAULT_BATCH_SIZE, readBody, RowBatcher, type ByteSource } from '../common/stream.ts';
import { KeyedColumns } from '../common/keyed-columns.ts';
import type { MetadataSink } from '../common/metadata.ts';
import type { Row } from '../common/row.ts';
import type { SeriesKeyDictionary, SeriesKeyTable } from '../common/series-keys.ts';
import { newStats, seriesRowsOf, type RemoteWriteStats } from './parse.ts';
import { KeyedRemoteWriteParser } from './parse-keyed.ts';

/** RemoteWriteBodyOptions bound what a remote-write request may cost. */
export interface RemoteWriteBodyOptions {
  /** onMetadata receives the request's metadata entries; absent, they are skipped and counted in stats. */
  readonly onMetadata?: MetadataSink | undefined;
  /** Content-Encoding header; absent means snappy, as the remote-write spec requires. */
  readonly contentEncoding?: string | undefined;
  /** Limit on the request body as sent (compressed). */
  readonly maxBodyBytes: number;
  /** Limit on the decoded protobuf. */
  readonly maxDecodedBytes: number;
}

const ENCODINGS = ['snappy', 'zstd', 'gzip', 'deflate', 'identity'];

/**
 * readRemoteWriteBody reads a whole remote-write body and returns the decoded WriteRequest bytes
 * for parse(). Snappy is the protocol's encoding; zstd, gzip and deflate are accepted because
 * some agents send them. Throws BodyTooLargeError, UnsupportedEncodingError or ParseError.
 */
export async function readRemoteWriteBody(source: ByteSource, opts: RemoteWriteBodyOptions): Promise<Buffer> {
  const enc = encodingOf(opts);
  return decodeWire(await readBody(source, opts.maxBodyBytes), enc, opts, false);
}

function encodingOf(opts: RemoteWriteBodyOptions): string {
  const enc = (opts.contentEncoding ?? '').trim().toLowerCase() || 'snappy';
  if (!ENCODINGS.includes(enc)) throw new UnsupportedEncodingError(enc, ENCODINGS);
  return enc;
}

// decodeWire undoes the body's encoding; with shared, a snappy body is decoded into the shared
// decode buffer (see decodeShared) when it fits.
function decodeWire(body: Buffer, enc: string, opts: RemoteWriteBodyOptions, shared: boolean): Buffer {
  if (enc === 'snappy') return shared ? decodeShared(body, opts.maxDecodedBytes) : decodeSnappyBlock(body, opts.maxDecodedBytes);
  if (enc === 'identity') {
    if (body.length > opts.maxDecodedBytes) throw new BodyTooLargeError('decompressed request body', opts.maxDecodedBytes);
    return body;
  }
  const o = { maxOutputLength: Math.max(1, opts.maxDecodedBytes) };
  try {
    if (enc === 'zstd') return zlib.zstdDecompressSync(body, o);
    if (enc === 'gzip') return zlib.gunzipSync(body, o);
    return zlib.inflateSync(body, o);
  } catch (err) {
    if ((err as { code?: string }).code === 'ERR_BUFFER_TOO_LARGE') throw new BodyTooLargeError('decompressed request body', opts.maxDecodedBytes);
    throw new ParseError(`cannot decode ${enc} body: ${(err as Error).message}`, {}, { cause: err });
  }
}

// One decode buffer for the snappy bodies of keyed requests, process-wide: a fresh buffer per
// request is fresh pages (the launchers' MALLOC_MMAP_THRESHOLD_=65536 makes each its own mmap).
// It may only be read synchronously: importRemoteWriteKeyed parses from it until it first has to
// wait (a full batch), and copies the rest of the body out before it does. Bodies larger than
// SHARED_MAX get a buffer of their own, so the shared one stays small.
const SHARED_MAX = 4 << 20;
let sharedBuf = Buffer.allocUnsafeSlow(0);

function decodeShared(block: Buffer, maxDecodedBytes: number): Buffer {
  const n = snappyDecodedLength(block, maxDecodedBytes);
  if (n > SHARED_MAX) return decodeSnappyBlock(block, maxDecodedBytes);
  if (sharedBuf.length < n) sharedBuf = Buffer.allocUnsafeSlow(Math.min(SHARED_MAX, Math.max(n, 2 * sharedBuf.length, 64 << 10)));
  decodeSnappyInto(block, sharedBuf);
  return sharedBuf.subarray(0, n);
}

function isShared(body: Buffer): boolean {
  return body.buffer === sharedBuf.buffer;
}

/** RemoteWriteImportOptions configure importRemoteWrite. */
export interface RemoteWriteImportOptions extends RemoteWriteBodyOptions {
  readonly batchSize?: number;
  /** Receives rows in request order, at most batchSize at a time; awaited. */
  readonly onBatch: (rows: Row[]) => void | Promise<void>;
}

/** RemoteWriteImportSummary says what one request delivered. */
export interface RemoteWriteImportSummary {
  readonly rows: number;
  readonly stats: RemoteWriteStats;
  /** Series skipped for their labels (`timeseries[i]`). */
  readonly errors: ErrorSummary;
  /** A structural protobuf error that stopped decoding; the series before it were delivered. */
  readonly error: ParseError | undefined;
}

/**
 * importRemoteWrite reads, decodes and parses one remote-write request, handing rows to onBatch in
 * bounded batches. Body-level problems (size limits, encoding, snappy corruption) reject; a broken
 * protobuf is returned in `error` after the series before it were delivered.
 */
export async function importRemoteWrite(source: ByteSource, opts: RemoteWriteImportOptions): Promise<RemoteWriteImportSummary> {
  const body = await readRemoteWriteBody(source, opts);
  const stats = newStats();
  const errors = new ErrorSummary();
  const batcher = new RowBatcher(opts.batchSize ?? DEFAULT_BATCH_SIZE, opts.onBatch);
  let error: ParseError | undefined;
  try {
    for (const rows of seriesRowsOf(body, stats, errors, opts.onMetadata)) await batcher.add(rows);
  } catch (e) {
    if (!(e instanceof ParseError)) throw e;
    error = e;
  }
  await batcher.flush();
  return { rows: batcher.total, stats, errors, error };
}

/** RemoteWriteKeyedOptions configure importRemoteWriteKeyed. */
export interface RemoteWriteKeyedOptions extends RemoteWriteBodyOptions {
  /** keys numbers label sets by their bytes; shared by the requests of one endpoint. */
  readonly keys: SeriesKeyDictionary;
  /** About how many rows onBatch receives at a time (a batch ends between series); default DEFAULT_BATCH_SIZE. */
  readonly batchSize?: number;
  /** Receives rows in request order; awaited. The batch and its arrays are reused once it returns. */
  readonly onBatch: (batch: KeyedColumns) => void | Promise<void>;
}

/**
 * importRemoteWriteKeyed is importRemoteWrite delivering KeyedColumns batches numbered by
 * opts.keys (see KeyedRemoteWriteParser): the same rows, errors and stats, without a row object
 * per sample or a labels array per series already seen.
 */
export async function importRemoteWriteKeyed(source: ByteSource, opts: RemoteWriteKeyedOptions): Promise<RemoteWriteImportSummary> {
  const enc = encodingOf(opts);
  const wire = await readBody(source, opts.maxBodyBytes);
  // From here to the first await, the body may be the shared decode buffer.
  const body = decodeWire(wire, enc, opts, true);
  let shared = isShared(body);
  const batchSize = opts.batchSize ?? DEFAULT_BATCH_SIZE;
  const keys = opts.keys;
  const out = takeColumns(Math.min(batchSize + 1024, 16_384), keys.table);
  const parser = new KeyedRemoteWriteParser(body, { keys, out, onMetadata: opts.onMetadata });
  let rows = 0;
  const deliver = async (): Promise<void> => {
    if (shared) {
      parser.copyBody();
      shared = false;
    }
    if (out.length > 0) {
      await opts.onBatch(out);
      rows += out.length;
    }
    keys.trim();
    out.clear(keys.table);
  };
  let error: ParseError | undefined;
  try {
    for (;;) {
      // Another request may have trimmed the dictionary while this one waited on storage.
      if (out.table !== keys.table) await deliver();
      if (parser.parse(batchSize)) break;
      await deliver();
    }
  } catch (e) {
    if (!(e instanceof ParseError)) throw e;
    error = e;
  }
  shared = false; // parsing is over: the body is not read again
  await deliver();
  giveColumns(out);
  return { rows, stats: parser.stats, errors: parser.errors, error };
}

// Batches of finished keyed requests, reused: a fresh one is ~220 KB of zeroed typed arrays, which
// cost 5–7% of remote-write parsing when made per request. At most SPARE_COLUMNS are kept.
const SPARE_COLUMNS = 4;
const spareColumns: KeyedColumns[] = [];

function takeColumns(capacity: number, table: SeriesKeyTable): KeyedColumns {
  const c = spareColumns.pop();
  if (c === undefined) return new KeyedColumns(capacity, table);
  c.clear(table);
  return c;
}

function giveColumns(c: KeyedColumns): void {
  if (spareColumns.length < SPARE_COLUMNS && c.keys.length <= 65_536) spareColumns.push(c);
}
