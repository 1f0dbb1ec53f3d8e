import { streamLines, type ByteSource, type LineStreamOptions, type StreamSummary } from '../common/stream.ts';
import { parse } from './parse.ts';

/** DEFAULT_MAX_JSON_LINE_LENGTH is the longest accepted JSON line (10 MiB: one line holds a whole series). */
export const DEFAULT_MAX_JSON_LINE_LENGTH = 10 * 1024 * 1024;

/** streamJsonLines parses a JSON-lines import body block by block. */
export function streamJsonLines(source: ByteSource, opts: LineStreamOptions): Promise<StreamSummary> {
  return streamLines(source, (text, firstLine) => parse(text, { firstLine }), { ...opts, maxLineLength: opts.maxLineLength ?? DEFAULT_MAX_JSON_LINE_LENGTH });
}
