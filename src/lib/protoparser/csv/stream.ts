import { streamLines, type ByteSource, type LineStreamOptions, type StreamSummary } from '../common/stream.ts';
import { parse } from './parse.ts';
import type { CsvImportFormat } from './format.ts';

/** streamCsv parses a CSV import body block by block; records may span lines inside quotes. */
export function streamCsv(source: ByteSource, opts: LineStreamOptions & { readonly format: CsvImportFormat; readonly now: () => number }): Promise<StreamSummary> {
  return streamLines(source, (text, firstLine) => parse(text, { format: opts.format, now: opts.now, firstLine }), { ...opts, quoteAware: true });
}
