import { streamKeyedLines, type KeyedStreamOptions } from '../common/keyed-stream.ts';
import { streamLines, type ByteSource, type LineStreamOptions, type StreamSummary } from '../common/stream.ts';
import type { MetadataCapture } from './metadata.ts';
import { parse } from './parse.ts';
import { parseKeyedBytes } from './parse-keyed-bytes.ts';

/**
 * streamPrometheus parses a Prometheus text body (/api/v1/import/prometheus) block by block,
 * delivering rows through opts.onBatch. `now` (ms) stamps lines without a timestamp; it is read
 * once per block.
 */
export function streamPrometheus(source: ByteSource, opts: LineStreamOptions & PrometheusStreamOptions): Promise<StreamSummary> {
  return streamLines(source, (text, firstLine) => parse(text, { now: opts.now, firstLine, metadata: opts.metadata }), opts);
}

/** PrometheusStreamOptions are what both Prometheus text streams take besides the stream's own options. */
export interface PrometheusStreamOptions {
  /** now (ms) stamps lines without a timestamp. */
  readonly now: () => number;
  /** metadata takes the `# HELP`, `# TYPE` and `# UNIT` lines; absent, they are skipped. */
  readonly metadata?: MetadataCapture | undefined;
}

/**
 * streamPrometheusKeyed is streamPrometheus delivering KeyedColumns batches numbered by opts.keys
 * (see parseKeyedBytes): the same rows, without a Row object or labels array per line, and known
 * lines read without decoding the body to text.
 */
export function streamPrometheusKeyed(source: ByteSource, opts: KeyedStreamOptions & PrometheusStreamOptions): Promise<StreamSummary> {
  return streamKeyedLines(source, (block, firstLine, out) => parseKeyedBytes(block, { now: opts.now, firstLine, keys: opts.keys, out, metadata: opts.metadata }), opts);
}
