// Request-body plumbing shared by every format: Content-Encoding decoding, byte limits, reading a
// whole body, and the line-stream driver that parses a body block by block and hands rows to the
// caller in bounded batches.

import { Readable, pipeline } from 'node:stream';
import zlib from 'node:zlib';
import { BodyTooLargeError, ErrorSummary, ParseError, UnsupportedEncodingError } from './parse-error.ts';
import { LineSplitter, type SplitEvent } from './lines.ts';
import { decodeSnappyInto, snappyDecodedLength } from './snappy.ts';
import type { Row } from './row.ts';

/** ByteSource is anything that yields body chunks: a Node Readable, a fastify raw request, an array. */
export type ByteSource = AsyncIterable<Uint8Array> | Iterable<Uint8Array>;

/** STREAM_ENCODINGS are the Content-Encoding values decodeBody understands. */
export const STREAM_ENCODINGS: readonly string[] = ['identity', 'gzip', 'x-gzip', 'deflate', 'zstd'];

/**
 * decodeBody undoes a Content-Encoding header (gzip, deflate — zlib-wrapped or raw —, zstd, or
 * identity; a comma list is undone right to left). Throws UnsupportedEncodingError for anything
 * else, before reading. Corrupt or truncated compressed data surfaces as a ParseError from the
 * returned iterable. Breaking out of the iteration releases the decompressor and the source.
 */
export function decodeBody(source: ByteSource, contentEncoding: string | undefined): AsyncIterable<Buffer> {
  const codings = (contentEncoding ?? '').split(',').map((c) => c.trim().toLowerCase()).filter((c) => c !== '' && c !== 'identity');
  for (const c of codings) if (!STREAM_ENCODINGS.includes(c)) throw new UnsupportedEncodingError(c, STREAM_ENCODINGS);
  let out: AsyncIterable<Buffer> = toBuffers(source);
  for (let i = codings.length - 1; i >= 0; i--) out = decompress(out, codings[i]!);
  return out;
}

async function* toBuffers(source: ByteSource): AsyncIterable<Buffer> {
  for await (const c of source) yield Buffer.isBuffer(c) ? c : Buffer.from(c.buffer, c.byteOffset, c.byteLength);
}

async function* decompress(source: AsyncIterable<Buffer>, coding: string): AsyncIterable<Buffer> {
  const it = source[Symbol.asyncIterator]();
  const first = await it.next();
  if (first.done) return;
  const z = createDecompressor(coding, first.value);
  async function* rest(): AsyncIterable<Buffer> {
    try {
      yield first.value as Buffer;
      for (let r = await it.next(); !r.done; r = await it.next()) yield r.value;
    } finally {
      await it.return?.(); // stopping early must release the source (e.g. the request stream)
    }
  }
  // Errors of the source destroy z, so they surface from z's iterator below.
  pipeline(Readable.from(rest()), z, () => {});
  try {
    for await (const c of z) yield c as Buffer;
  } catch (err) {
    throw isCodecError(err) ? new ParseError(`cannot decode ${coding} body: ${(err as Error).message}`, {}, { cause: err }) : err;
  } finally {
    z.destroy();
  }
}

function createDecompressor(coding: string, head: Buffer): zlib.Gunzip | zlib.Inflate | zlib.InflateRaw | zlib.ZstdDecompress {
  if (coding === 'zstd') return zlib.createZstdDecompress();
  if (coding === 'deflate') {
    // HTTP "deflate" is zlib-wrapped, but several clients send raw deflate; the zlib header says which.
    const zlibWrapped = head.length >= 2 && (head[0]! & 0x0f) === 8 && ((head[0]! << 8) | head[1]!) % 31 === 0;
    return zlibWrapped ? zlib.createInflate() : zlib.createInflateRaw();
  }
  return zlib.createGunzip();
}

function isCodecError(err: unknown): boolean {
  const code = (err as { code?: unknown } | null)?.code;
  return typeof code === 'string' && (code.startsWith('Z_') || code.startsWith('ZSTD_') || code.startsWith('ERR_ZSTD'));
}

/**
 * limitBytes passes chunks through until more than maxBytes went by, then throws BodyTooLargeError
 * (`what` names the body, e.g. "decompressed request body") and stops reading the source.
 */
export async function* limitBytes(source: AsyncIterable<Buffer>, maxBytes: number, what: string): AsyncIterable<Buffer> {
  let total = 0;
  for await (const c of source) {
    total += c.length;
    if (total > maxBytes) throw new BodyTooLargeError(what, maxBytes);
    yield c;
  }
}

/** readBody collects a whole body into one Buffer, throwing BodyTooLargeError past maxBytes. */
export async function readBody(source: AsyncIterable<Buffer> | ByteSource, maxBytes: number, what = 'request body'): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let total = 0;
  for await (const c of limitBytes(toBuffers(source), maxBytes, what)) {
    chunks.push(c);
    total += c.length;
  }
  return chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, total);
}

/**
 * readDecodedBody reads a whole body for the JSON document formats (agent format, OpenTSDB HTTP):
 * limits the bytes as sent (maxBodyBytes) and after Content-Encoding decoding (maxDecodedBytes).
 */
export async function readDecodedBody(source: ByteSource, contentEncoding: string | undefined, maxBodyBytes: number, maxDecodedBytes: number): Promise<Buffer> {
  const raw = limitBytes(toBuffers(source), maxBodyBytes, 'request body');
  return readBody(decodeBody(raw, contentEncoding), maxDecodedBytes, 'decompressed request body');
}

/**
 * decodeSnappyBlock decompresses one Snappy block (the remote-write body encoding) into a new
 * Buffer. The uncompressed length in the block header is checked against maxDecodedBytes before
 * any memory is allocated for the output. Throws ParseError for corrupt input, BodyTooLargeError
 * when too big. (snappy.ts decodes into a caller's buffer, and says why it is not the package.)
 */
export function decodeSnappyBlock(block: Uint8Array, maxDecodedBytes: number): Buffer {
  const out = Buffer.allocUnsafe(snappyDecodedLength(block, maxDecodedBytes));
  decodeSnappyInto(block, out);
  return out;
}

/** DEFAULT_MAX_LINE_LENGTH is the longest accepted text line (256 KiB, as VictoriaMetrics' line protocols). */
export const DEFAULT_MAX_LINE_LENGTH = 256 * 1024;

/** DEFAULT_BATCH_SIZE is how many rows onBatch receives at most by default. */
export const DEFAULT_BATCH_SIZE = 10_000;

/** BlockParser parses a block of whole lines whose first line has number firstLine. */
export type BlockParser = (text: string, firstLine: number) => { rows: Row[]; errors: ErrorSummary; lines: number };

/** LineStreamOptions configure streamLines. */
export interface LineStreamOptions {
  /** Content-Encoding header of the request. */
  readonly contentEncoding?: string | undefined;
  /** Longest accepted line in bytes (default DEFAULT_MAX_LINE_LENGTH); longer lines are counted as bad lines. */
  readonly maxLineLength?: number;
  /** Upper bound of rows per onBatch call (default DEFAULT_BATCH_SIZE). */
  readonly batchSize?: number;
  /** Limit on decompressed body bytes; 0 or undefined = none (line streaming needs no buffering). */
  readonly maxDecodedBytes?: number;
  /** "\n" inside double quotes does not end a line (CSV). */
  readonly quoteAware?: boolean;
  /**
   * Deliver the rows of every chunk as soon as it is parsed instead of waiting for a full batch.
   * Network receivers (a TCP connection that stays open for hours) need this so rows do not wait
   * in memory for more data.
   */
  readonly flushPerChunk?: boolean;
  /** onBatch receives rows in input order, at most batchSize at a time; it is awaited (back-pressure). */
  readonly onBatch: (rows: Row[]) => void | Promise<void>;
}

/** StreamSummary tells the insert handler what happened to one request body. */
export interface StreamSummary {
  readonly rows: number;
  readonly lines: number;
  readonly errors: ErrorSummary;
}

/**
 * streamLines decodes a body, splits it into lines, parses them block by block with parseBlock and
 * delivers rows in batches. Bad lines are counted in the summary and do not stop the stream, so
 * the handler can store the good rows and still report the first bad line. Memory stays bounded by
 * one chunk, maxLineLength and batchSize. Errors of the body itself (decoding, size limit, client
 * abort) reject the promise after the rows before them were delivered.
 */
export async function streamLines(source: ByteSource, parseBlock: BlockParser, opts: LineStreamOptions): Promise<StreamSummary> {
  const errors = new ErrorSummary();
  const batcher = new RowBatcher(opts.batchSize ?? DEFAULT_BATCH_SIZE, opts.onBatch);
  const onBlock = async (text: string, firstLine: number): Promise<number> => {
    const res = parseBlock(text, firstLine);
    errors.merge(res.errors);
    await batcher.add(res.rows);
    return res.lines;
  };
  const lines = await forEachLineBlock(source, opts, errors, onBlock, opts.flushPerChunk ? () => batcher.flush() : undefined);
  await batcher.flush();
  return { rows: batcher.total, lines, errors };
}

/** LineBlockOptions are what forEachLineBlock needs of LineStreamOptions. */
export type LineBlockOptions = Pick<LineStreamOptions, 'contentEncoding' | 'maxLineLength' | 'maxDecodedBytes' | 'quoteAware'>;

/**
 * forEachLineBlock decodes a body and splits it into blocks of whole lines, calling onBlock(text,
 * firstLine) for each (awaited; it returns how many lines the block held) and onChunk after the
 * blocks of every input chunk. Lines over the length limit are recorded in errors and skipped.
 * Returns the number of lines in the body. The driver of streamLines.
 */
export function forEachLineBlock(
  source: ByteSource,
  opts: LineBlockOptions,
  errors: ErrorSummary,
  onBlock: (text: string, firstLine: number) => number | Promise<number>,
  onChunk?: () => Promise<void>,
): Promise<number> {
  return eachBlock(source, opts, false, errors, (ev, line) => onBlock((ev as { text: string }).text, line), onChunk);
}

/**
 * forEachByteBlock is forEachLineBlock handing over blocks as undecoded UTF-8 bytes, for parsers
 * that read bytes. A block may share memory with the body's chunk: use it before returning.
 */
export function forEachByteBlock(
  source: ByteSource,
  opts: LineBlockOptions,
  errors: ErrorSummary,
  onBlock: (bytes: Buffer, firstLine: number) => number | Promise<number>,
  onChunk?: () => Promise<void>,
): Promise<number> {
  return eachBlock(source, opts, true, errors, (ev, line) => onBlock((ev as { bytes: Buffer }).bytes, line), onChunk);
}

async function eachBlock(
  source: ByteSource,
  opts: LineBlockOptions,
  bytes: boolean,
  errors: ErrorSummary,
  onBlock: (ev: SplitEvent, firstLine: number) => number | Promise<number>,
  onChunk?: () => Promise<void>,
): Promise<number> {
  const maxLineLength = opts.maxLineLength ?? DEFAULT_MAX_LINE_LENGTH;
  const splitter = new LineSplitter({ maxLineLength, quoteAware: opts.quoteAware ?? false, bytes });
  let body = decodeBody(source, opts.contentEncoding);
  if (opts.maxDecodedBytes) body = limitBytes(body, opts.maxDecodedBytes, 'decompressed request body');
  let line = 1;
  const events: SplitEvent[] = [];
  const drain = async (): Promise<void> => {
    for (const ev of events) {
      if (ev.kind === 'tooLong') {
        errors.add(`line is longer than ${maxLineLength} bytes (${ev.length} bytes)`, { line });
        line += ev.lines;
        continue;
      }
      line += await onBlock(ev, line);
    }
    events.length = 0;
  };
  for await (const chunk of body) {
    splitter.push(chunk, events);
    await drain();
    if (onChunk) await onChunk();
  }
  splitter.end(events);
  await drain();
  return line - 1;
}

/**
 * RowBatcher re-cuts rows into batches of at most `size` and awaits `onBatch` for each, so a caller
 * producing rows faster than storage takes them waits. Not safe for concurrent add() calls.
 */
export class RowBatcher {
  readonly #size: number;
  readonly #onBatch: (rows: Row[]) => void | Promise<void>;
  #pending: Row[] = [];
  /** Rows whose onBatch call completed. */
  total = 0;

  constructor(size: number, onBatch: (rows: Row[]) => void | Promise<void>) {
    if (!(size >= 1)) throw new RangeError(`batch size must be at least 1; got ${size}`);
    this.#size = Math.floor(size);
    this.#onBatch = onBatch;
  }

  /** add queues rows and delivers every full batch. */
  async add(rows: readonly Row[]): Promise<void> {
    for (let i = 0; i < rows.length; ) {
      const take = Math.min(this.#size - this.#pending.length, rows.length - i);
      for (let j = 0; j < take; j++) this.#pending.push(rows[i + j]!);
      i += take;
      if (this.#pending.length === this.#size) await this.#deliver();
    }
  }

  /** flush delivers the last, partial batch. */
  async flush(): Promise<void> {
    if (this.#pending.length > 0) await this.#deliver();
  }

  async #deliver(): Promise<void> {
    const batch = this.#pending;
    this.#pending = [];
    await this.#onBatch(batch);
    this.total += batch.length;
  }
}
