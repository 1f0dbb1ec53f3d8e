import { streamKeyedLines, type KeyedStreamOptions } from '../common/keyed-stream.ts';
import { streamLines, type ByteSource, type LineStreamOptions, type StreamSummary } from '../common/stream.ts';
import { parse, type InfluxParseOptions } from './parse.ts';
import { parseInfluxKeyedBytes } from './parse-keyed-bytes.ts';

/**
 * streamInflux parses an influx line-protocol body (/write, /influx/write, /api/v2/write) block by
 * block, delivering rows through opts.onBatch. Parse options (precision, db, naming) apply to
 * every block.
 */
export function streamInflux(source: ByteSource, opts: LineStreamOptions & Omit<InfluxParseOptions, 'firstLine'>): Promise<StreamSummary> {
  return streamLines(source, (text, firstLine) => parse(text, { ...opts, firstLine }), opts);
}

/**
 * streamInfluxKeyed is streamInflux delivering KeyedColumns batches numbered by opts.keys (see
 * parseInfluxKeyedBytes): the same rows, without a Row object per field or decoding plain lines.
 * opts.keys must serve only bodies with the same `db` and naming options.
 */
export function streamInfluxKeyed(source: ByteSource, opts: KeyedStreamOptions & Omit<InfluxParseOptions, 'firstLine'>): Promise<StreamSummary> {
  return streamKeyedLines(source, (block, firstLine, out) => parseInfluxKeyedBytes(block, { ...opts, firstLine, out }), opts);
}
