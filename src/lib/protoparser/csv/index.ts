export { parseFormat, parseExportFormat, importFormatFor, type CsvImportFormat, type ImportColumn, type ExportColumn } from './format.ts';
export { parse, splitFields, type CsvParseOptions } from './parse.ts';
export { writeSeries, csvField } from './write.ts';
export { timeParser, formatTime, type TimeParser, type TimeUnit } from './time.ts';
export { streamCsv } from './stream.ts';
