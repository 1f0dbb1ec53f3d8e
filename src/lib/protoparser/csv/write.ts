// CSV export (/api/v1/export/csv): one record per sample, columns as the `format` arg lists them,
// no header row (DECISIONS.md), so the output re-imports with importFormatFor(columns). Fields
// that hold ",", '"', "\r" or "\n" are quoted. Values use the shortest round-trip decimal and
// NaN, +Inf, -Inf; a label the series lacks is an empty field.

import type { Labels } from '../common/row.ts';
import { METRIC_NAME_LABEL } from '../common/row.ts';
import { formatFloat } from '../common/float.ts';
import { formatTime } from './time.ts';
import type { ExportColumn } from './format.ts';

/** csvField quotes a field when CSV needs it. */
export function csvField(v: string): string {
  return /[",\r\n]/.test(v) ? `"${v.replace(/"/g, '""')}"` : v;
}

/**
 * writeSeries renders every sample of one series as CSV records (each ending in "\n").
 * timestamps are integer ms, parallel to values.
 */
export function writeSeries(columns: readonly ExportColumn[], labels: Labels, timestamps: ArrayLike<number>, values: ArrayLike<number>): string {
  if (timestamps.length !== values.length) throw new RangeError(`series has ${timestamps.length} timestamps but ${values.length} values`);
  const fixed = columns.map((c) => {
    if (c.kind === 'name') return csvField(labelValue(labels, METRIC_NAME_LABEL));
    if (c.kind === 'label') return csvField(labelValue(labels, c.name));
    return undefined;
  });
  let out = '';
  for (let i = 0; i < timestamps.length; i++) {
    const fields = columns.map((c, k) => {
      if (c.kind === 'value') return formatFloat(values[i]!);
      if (c.kind === 'timestamp') return formatTime(timestamps[i]!, c.unit);
      return fixed[k]!;
    });
    out += `${fields.join(',')}\n`;
  }
  return out;
}

function labelValue(labels: Labels, name: string): string {
  for (const l of labels) if (l.name === name) return l.value;
  return '';
}
