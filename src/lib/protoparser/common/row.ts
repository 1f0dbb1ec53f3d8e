import type { Label, Labels, MetricRow } from '../../storageapi/index.ts';
import { fail } from './line-failure.ts';

/**
 * Row is one parsed sample: labels (sorted by name with JS string order, unique names, no empty
 * values, `__name__` included when the format has a metric name), timestamp in integer
 * milliseconds, float64 value. It is storageapi's MetricRow, so rows go to `addRows` unchanged.
 *
 * rawKey is set only by formats where it is free (Prometheus text, remote write). Keys of different
 * formats never collide: Prometheus text keys never contain "\n", remote-write keys always start
 * with "\n" (the protobuf tag of a Label). A text rawKey is a slice of the request text, so a cache
 * that keeps it should copy it first (V8 slices keep their parent string alive).
 */
export type Row = MetricRow;
export type { Label, Labels };

/** METRIC_NAME_LABEL is the label that holds the metric name. */
export const METRIC_NAME_LABEL = '__name__';

/** DuplicateLabels says what to do when a label name appears twice in one series. */
export type DuplicateLabels = 'reject' | 'keepLast';

const byName = (a: Label, b: Label): number => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0);

/**
 * canonicalLabels turns labels as a sender spelled them into a Labels value: drops labels with an
 * empty value (Prometheus semantics: an empty label is an absent label), sorts by name when needed
 * and resolves repeated names by `dup`. It reorders `labels` in place and returns it (or a filtered
 * copy). Throws a LineFailure (see line-failure.ts) on an empty name, or a repeated name when
 * `dup` is "reject".
 */
export function canonicalLabels(labels: Label[], dup: DuplicateLabels): Label[] {
  let sorted = true;
  let hasEmpty = false;
  for (let i = 0; i < labels.length; i++) {
    const l = labels[i]!;
    if (l.name === '') fail('empty label name');
    if (l.value === '') hasEmpty = true;
    if (i > 0 && labels[i - 1]!.name >= l.name) sorted = false;
  }
  let out = hasEmpty ? labels.filter((l) => l.value !== '') : labels;
  if (sorted) return out;
  out.sort(byName); // stable: among equal names the later one stays later
  let w = 0;
  for (let i = 0; i < out.length; i++) {
    const l = out[i]!;
    if (w > 0 && out[w - 1]!.name === l.name) {
      if (dup === 'reject') fail(`duplicate label "${l.name}"`);
      out[w - 1] = l;
      continue;
    }
    out[w++] = l;
  }
  if (w !== out.length) out = out.slice(0, w);
  return out;
}

/** label builds a Label (a plain frozen-shape object; kept tiny because parsers call it per line). */
export function label(name: string, value: string): Label {
  return { name, value };
}

/** metricName returns the `__name__` value of sorted labels, or "" when there is none. */
export function metricName(labels: Labels): string {
  for (const l of labels) if (l.name === METRIC_NAME_LABEL) return l.value;
  return '';
}
