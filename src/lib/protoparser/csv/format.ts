// The `format` query arg of CSV import and export.
//
// Import (/api/v1/import/csv): comma list of `<column>:<type>:<name>`, columns numbered from 1:
//   metric:<name>  the column holds a value of metric <name> (an empty field is skipped);
//   label:<name>   the column holds the value of label <name>;
//   time:<format>  the column holds the timestamp: unix_s, unix_ms, unix_ns, rfc3339, custom:<Go layout>
//                  (no time column: rows are stamped with the request time).
// At least one metric column, at most one time column, no column or label named twice. A
// `label:__name__` column supplies the metric name per row instead (so CSV export output, which
// carries names in a column, re-imports); it requires exactly one metric column, whose name is
// then only a placeholder.
//
// Export (/api/v1/export/csv): comma list of `__name__`, `__value__`, `__timestamp__[:<unit>]`
// (unit unix_s, unix_ms — the default —, unix_ns or rfc3339) and label names.

import { InvalidArgumentError } from '../common/parse-error.ts';
import { METRIC_NAME_LABEL } from '../common/row.ts';
import { quote } from '../common/line-failure.ts';
import { timeParser, type TimeParser, type TimeUnit } from './time.ts';

/** ImportColumn says what one CSV column holds. */
export type ImportColumn =
  | { readonly kind: 'metric'; readonly name: string }
  | { readonly kind: 'label'; readonly name: string }
  | { readonly kind: 'time'; readonly format: string; readonly parse: TimeParser };

/** CsvImportFormat is a parsed import `format`: one entry per column position (undefined = ignored). */
export interface CsvImportFormat {
  readonly columns: readonly (ImportColumn | undefined)[];
  /** True when a label:__name__ column names the metric of each row. */
  readonly nameFromColumn: boolean;
}

const MAX_COLUMNS = 64 * 1024;

/** parseFormat parses an import `format` arg. Throws InvalidArgumentError naming the bad entry. */
export function parseFormat(format: string): CsvImportFormat {
  const bad = (msg: string): never => {
    throw new InvalidArgumentError('format', msg);
  };
  if (format.trim() === '') bad('must not be empty; want <column>:<type>:<name>,…');
  const columns: (ImportColumn | undefined)[] = [];
  const labels = new Set<string>();
  let metrics = 0;
  let time = false;
  format.split(',').forEach((entry, k) => {
    const where = `entry #${k + 1} ${quote(entry)}`;
    const m = /^(\d+):([a-z]+):(.*)$/.exec(entry.trim());
    if (m === null) return bad(`${where} must look like <column>:<type>:<name>`);
    const pos = Number(m[1]);
    const type = m[2]!;
    const name = m[3]!;
    if (pos < 1 || pos > MAX_COLUMNS) bad(`${where}: column must be between 1 and ${MAX_COLUMNS}`);
    if (columns[pos - 1] !== undefined) bad(`${where}: column ${pos} is already described`);
    if (name === '') bad(`${where}: missing ${type === 'time' ? 'time format' : 'name'}`);
    if (type === 'metric') {
      metrics++;
      columns[pos - 1] = { kind: 'metric', name };
    } else if (type === 'label') {
      if (labels.has(name)) bad(`${where}: label ${quote(name)} is already described`);
      labels.add(name);
      columns[pos - 1] = { kind: 'label', name };
    } else if (type === 'time') {
      if (time) bad(`${where}: only one time column is allowed`);
      time = true;
      let parse: TimeParser;
      try {
        parse = timeParser(name);
      } catch (err) {
        return bad(`${where}: ${(err as Error).message}`);
      }
      columns[pos - 1] = { kind: 'time', format: name, parse };
    } else {
      bad(`${where}: unknown type ${quote(type)}; want metric, label or time`);
    }
  });
  if (metrics === 0) bad('needs at least one metric column');
  const nameFromColumn = labels.has(METRIC_NAME_LABEL);
  if (nameFromColumn && metrics !== 1) bad(`a label:${METRIC_NAME_LABEL} column needs exactly one metric column; got ${metrics}`);
  return { columns: Array.from(columns), nameFromColumn };
}

/** ExportColumn is one column of CSV export output. */
export type ExportColumn =
  | { readonly kind: 'name' }
  | { readonly kind: 'value' }
  | { readonly kind: 'timestamp'; readonly unit: TimeUnit }
  | { readonly kind: 'label'; readonly name: string };

const TIME_UNITS: readonly string[] = ['unix_s', 'unix_ms', 'unix_ns', 'rfc3339'];

/** parseExportFormat parses an export `format` arg. Throws InvalidArgumentError naming the bad entry. */
export function parseExportFormat(format: string): ExportColumn[] {
  if (format.trim() === '') throw new InvalidArgumentError('format', 'must not be empty; want e.g. __name__,__value__,__timestamp__:unix_s');
  return format.split(',').map((raw, k): ExportColumn => {
    const entry = raw.trim();
    if (entry === '') throw new InvalidArgumentError('format', `entry #${k + 1} is empty`);
    if (entry === '__name__') return { kind: 'name' };
    if (entry === '__value__') return { kind: 'value' };
    if (entry === '__timestamp__') return { kind: 'timestamp', unit: 'unix_ms' };
    if (entry.startsWith('__timestamp__:')) {
      const unit = entry.slice('__timestamp__:'.length);
      if (!TIME_UNITS.includes(unit)) throw new InvalidArgumentError('format', `entry #${k + 1}: unknown timestamp unit ${quote(unit)}; want one of ${TIME_UNITS.join(', ')}`);
      return { kind: 'timestamp', unit: unit as TimeUnit };
    }
    return { kind: 'label', name: entry };
  });
}

/**
 * importFormatFor returns the import `format` that reads back CSV written with columns. Without a
 * __name__ column the rows get metric name `metricName`. Throws InvalidArgumentError when the
 * export has no __value__ column, or several with a __name__ column.
 */
export function importFormatFor(columns: readonly ExportColumn[], metricName = 'value'): string {
  const values = columns.filter((c) => c.kind === 'value').length;
  const hasName = columns.some((c) => c.kind === 'name');
  if (values === 0) throw new InvalidArgumentError('format', 'has no __value__ column, so it cannot be imported');
  if (hasName && values > 1) throw new InvalidArgumentError('format', 'has several __value__ columns and a __name__ column, so it cannot be imported');
  const seen = new Set<string>();
  const entries: string[] = [];
  columns.forEach((c, i) => {
    const pos = i + 1;
    if (c.kind === 'name' && !seen.has(METRIC_NAME_LABEL)) entries.push(`${pos}:label:${METRIC_NAME_LABEL}`);
    else if (c.kind === 'value') entries.push(`${pos}:metric:${metricName}`);
    else if (c.kind === 'timestamp' && !seen.has('\0time')) entries.push(`${pos}:time:${c.unit}`);
    else if (c.kind === 'label' && !seen.has(c.name) && c.name !== METRIC_NAME_LABEL) entries.push(`${pos}:label:${c.name}`);
    seen.add(c.kind === 'name' ? METRIC_NAME_LABEL : c.kind === 'timestamp' ? '\0time' : c.kind === 'label' ? c.name : '');
  });
  return entries.join(',');
}
