import { streamLines, type ByteSource, type LineStreamOptions, type StreamSummary } from '../common/stream.ts';
import { parse, type InfluxParseOptions } from './parse.ts';

/**
 * streamInflux parses an influx line-protocol body (/write, /influx/write, /api/v2/write) block by
 * block, delivering rows through opts.onBatch. Parse options (precision, db, naming) apply to
 * every block.
 */
export function streamInflux(source: ByteSource, opts: LineStreamOptions & Omit<InfluxParseOptions, 'firstLine'>): Promise<StreamSummary> {
  return streamLines(source, (text, firstLine) => parse(text, { ...opts, firstLine }), opts);
}
