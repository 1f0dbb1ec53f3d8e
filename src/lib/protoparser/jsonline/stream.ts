import { streamKeyedLines, type KeyedStreamOptions } from '../common/keyed-stream.ts';
import { streamLines, type ByteSource, type LineStreamOptions, type StreamSummary } from '../common/stream.ts';
import { parse } from './parse.ts';
import { parseJsonLinesKeyed } from './parse-keyed.ts';

/** DEFAULT_MAX_JSON_LINE_LENGTH is the longest accepted JSON line (10 MiB: one line holds a whole series). */
export const DEFAULT_MAX_JSON_LINE_LENGTH = 10 * 1024 * 1024;

/** streamJsonLines parses a JSON-lines import body block by block. */
export function streamJsonLines(source: ByteSource, opts: LineStreamOptions): Promise<StreamSummary> {
  return streamLines(source, (text, firstLine) => parse(text, { firstLine }), { ...opts, maxLineLength: opts.maxLineLength ?? DEFAULT_MAX_JSON_LINE_LENGTH });
}

/**
 * streamJsonLinesKeyed is streamJsonLines delivering KeyedColumns batches numbered by opts.keys
 * (see parseJsonLinesKeyed): the same rows and errors, without a Row object per sample.
 */
export function streamJsonLinesKeyed(source: ByteSource, opts: KeyedStreamOptions): Promise<StreamSummary> {
  const keys = opts.keys;
  return streamKeyedLines(source, (block, firstLine, out) => parseJsonLinesKeyed(block, { firstLine, keys, out }), {
    ...opts, maxLineLength: opts.maxLineLength ?? DEFAULT_MAX_JSON_LINE_LENGTH,
  });
}
