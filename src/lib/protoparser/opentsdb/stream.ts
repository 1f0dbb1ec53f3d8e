import { streamLines, type ByteSource, type LineStreamOptions, type StreamSummary } from '../common/stream.ts';
import { parse } from './parse.ts';

/** streamOpenTsdb parses an OpenTSDB telnet stream (a TCP connection) block by block; rows of each received chunk are delivered at once (flushPerChunk defaults to true). */
export function streamOpenTsdb(source: ByteSource, opts: LineStreamOptions & { readonly now: () => number }): Promise<StreamSummary> {
  return streamLines(source, (text, firstLine) => parse(text, { now: opts.now, firstLine }), { flushPerChunk: true, ...opts });
}
