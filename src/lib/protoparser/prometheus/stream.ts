import { streamKeyedLines, type KeyedStreamOptions } from '../common/keyed-stream.ts';
import { streamLines, type ByteSource, type LineStreamOptions, type StreamSummary } from '../common/stream.ts';
import { parse } from './parse.ts';
import { parseKeyedBytes } from './parse-keyed-bytes.ts';

/**
 * streamPrometheus parses a Prometheus text body (/api/v1/import/prometheus) block by block,
 * delivering rows through opts.onBatch. `now` (ms) stamps lines without a timestamp; it is read
 * once per block.
 */
export function streamPrometheus(source: ByteSource, opts: LineStreamOptions & { readonly now: () => number }): Promise<StreamSummary> {
  return streamLines(source, (text, firstLine) => parse(text, { now: opts.now, firstLine }), opts);
}

/**
 * streamPrometheusKeyed is streamPrometheus delivering KeyedColumns batches numbered by opts.keys
 * (see parseKeyedBytes): the same rows, without a Row object or labels array per line, and known
 * lines read without decoding the body to text.
 */
export function streamPrometheusKeyed(source: ByteSource, opts: KeyedStreamOptions & { readonly now: () => number }): Promise<StreamSummary> {
  return streamKeyedLines(source, (block, firstLine, out) => parseKeyedBytes(block, { now: opts.now, firstLine, keys: opts.keys, out }), opts);
}
