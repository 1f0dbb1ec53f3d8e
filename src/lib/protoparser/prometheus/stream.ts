import { streamLines, type ByteSource, type LineStreamOptions, type StreamSummary } from '../common/stream.ts';
import { parse } from './parse.ts';

/**
 * streamPrometheus parses a Prometheus text body (/api/v1/import/prometheus) block by block,
 * delivering rows through opts.onBatch. `now` (ms) stamps lines without a timestamp; it is read
 * once per block.
 */
export function streamPrometheus(source: ByteSource, opts: LineStreamOptions & { readonly now: () => number }): Promise<StreamSummary> {
  return streamLines(source, (text, firstLine) => parse(text, { now: opts.now, firstLine }), opts);
}
