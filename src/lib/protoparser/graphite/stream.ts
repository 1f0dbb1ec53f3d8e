import { streamLines, type ByteSource, type LineStreamOptions, type StreamSummary } from '../common/stream.ts';
import { parse } from './parse.ts';

/** streamGraphite parses a Graphite plaintext stream (a TCP connection or a body) block by block; rows of each received chunk are delivered at once (flushPerChunk defaults to true). */
export function streamGraphite(source: ByteSource, opts: LineStreamOptions & { readonly now: () => number }): Promise<StreamSummary> {
  return streamLines(source, (text, firstLine) => parse(text, { now: opts.now, firstLine }), { flushPerChunk: true, ...opts });
}
