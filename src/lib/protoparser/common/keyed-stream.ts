import { KeyedColumns } from './keyed-columns.ts';
import { ErrorSummary } from './parse-error.ts';
import type { SeriesKeyDictionary } from './series-keys.ts';
import { type ByteSource, DEFAULT_BATCH_SIZE, forEachByteBlock, type LineBlockOptions, type StreamSummary } from './stream.ts';

/** KeyedBlockParser parses a block of whole lines (UTF-8 bytes; the first numbered firstLine) into out. */
export type KeyedBlockParser = (block: Buffer, firstLine: number, out: KeyedColumns) => { readonly errors: ErrorSummary; readonly lines: number };

/** KeyedStreamOptions configure streamKeyedLines. */
export interface KeyedStreamOptions extends LineBlockOptions {
  /** keys numbers the series keys of every batch; shared by the streams of one format. */
  readonly keys: SeriesKeyDictionary;
  /** About how many rows onBatch receives at a time (a batch ends at a block boundary past it); default DEFAULT_BATCH_SIZE. */
  readonly batchSize?: number;
  /** Deliver the rows of every chunk as soon as it is parsed (long-lived connections). */
  readonly flushPerChunk?: boolean;
  /**
   * onBatch receives rows in input order; it is awaited (back-pressure). The batch and its arrays
   * are reused once it returns.
   */
  readonly onBatch: (batch: KeyedColumns) => void | Promise<void>;
}

/**
 * streamKeyedLines is streamLines for keyed parsers: it decodes and splits a body, parses byte blocks
 * into one reused KeyedColumns batch and delivers it when it holds batchSize rows or more. The
 * dictionary is trimmed between batches; a batch never mixes key tables (when another stream
 * trimmed the dictionary meanwhile, the current batch is delivered first).
 */
export async function streamKeyedLines(source: ByteSource, parseBlock: KeyedBlockParser, opts: KeyedStreamOptions): Promise<StreamSummary> {
  const errors = new ErrorSummary();
  const batchSize = opts.batchSize ?? DEFAULT_BATCH_SIZE;
  const keys = opts.keys;
  const out = new KeyedColumns(Math.min(batchSize + 1024, 16_384), keys.table);
  let rows = 0;
  const deliver = async (): Promise<void> => {
    if (out.length > 0) {
      await opts.onBatch(out);
      rows += out.length;
    }
    keys.trim();
    out.clear(keys.table);
  };
  const onBlock = async (block: Buffer, firstLine: number): Promise<number> => {
    if (out.table !== keys.table) await deliver();
    const res = parseBlock(block, firstLine, out);
    errors.merge(res.errors);
    if (out.length >= batchSize) await deliver();
    return res.lines;
  };
  const lines = await forEachByteBlock(source, opts, errors, onBlock, opts.flushPerChunk ? deliver : undefined);
  await deliver();
  return { rows, lines, errors };
}
