import { ParseError } from '../common/parse-error.ts';
import { decodeBody, limitBytes, RowBatcher, DEFAULT_BATCH_SIZE, type ByteSource } from '../common/stream.ts';
import type { Row } from '../common/row.ts';
import { NativeDecoder, seriesRows, type NativeDecoderOptions } from './parse.ts';

/** NativeStreamOptions configure streamNative. */
export interface NativeStreamOptions extends NativeDecoderOptions {
  readonly contentEncoding?: string | undefined;
  /** Limit on decompressed body bytes; 0 or undefined = none. */
  readonly maxDecodedBytes?: number;
  readonly batchSize?: number;
  /** Receives rows in stream order, at most batchSize at a time; awaited. */
  readonly onBatch: (rows: Row[]) => void | Promise<void>;
}

/** NativeStreamSummary says what was imported, and the error that stopped the import, if any. */
export interface NativeStreamSummary {
  readonly rows: number;
  readonly series: number;
  /** The first corruption found; everything before it was delivered. */
  readonly error: ParseError | undefined;
}

/**
 * streamNative imports a native body (/api/v1/import/native): decodes blocks as chunks arrive and
 * hands rows to onBatch. A ParseError (corrupt or truncated data, bad compression) ends the import
 * and is returned with the counts of what was delivered before it; other errors (size limit,
 * client abort) reject.
 */
export async function streamNative(source: ByteSource, opts: NativeStreamOptions): Promise<NativeStreamSummary> {
  const decoder = new NativeDecoder(opts);
  const batcher = new RowBatcher(opts.batchSize ?? DEFAULT_BATCH_SIZE, opts.onBatch);
  let series = 0;
  let error: ParseError | undefined;
  try {
    let body = decodeBody(source, opts.contentEncoding);
    if (opts.maxDecodedBytes) body = limitBytes(body, opts.maxDecodedBytes, 'decompressed request body');
    for await (const chunk of body) {
      for (const s of decoder.push(chunk)) {
        series++;
        await batcher.add(seriesRows(s));
      }
    }
    decoder.end();
  } catch (e) {
    if (!(e instanceof ParseError)) throw e;
    error = e;
  }
  await batcher.flush();
  return { rows: batcher.total, series, error };
}
