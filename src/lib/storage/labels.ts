import type { Label, Labels } from '../storageapi/api.ts';

/** LabelLimits are the per-series limits checked when a series is first seen. */
export interface LabelLimits {
  /** maxLabelsPerTimeseries caps labels per series, __name__ included (-maxLabelsPerTimeseries). */
  readonly maxLabelsPerTimeseries: number;
  /** maxLabelValueLen caps the UTF-16 length of every label value and name (-maxLabelValueLen). */
  readonly maxLabelValueLen: number;
}

/** RejectReason names why a row was not stored; stats count rows per reason. */
export type RejectReason = 'too_many_labels' | 'label_too_long' | 'invalid_labels' | 'invalid_timestamp' | 'outside_retention';

/** LabelsCheck is normalizeLabels' result: the canonical label set or why there is none. */
export type LabelsCheck =
  | { readonly ok: true; readonly labels: Labels }
  | { readonly ok: false; readonly reason: RejectReason; readonly message: string };

function byName(a: Label, b: Label): number {
  return a.name < b.name ? -1 : a.name > b.name ? 1 : 0;
}

/**
 * normalizeLabels returns the canonical form of a row's labels: sorted by name, labels with an
 * empty value dropped (an empty value means "no such label", as in Prometheus). It rejects
 * duplicate or empty names, a set left empty, and sets breaking the limits. The input is not
 * mutated; it is returned as is when already canonical.
 */
export function normalizeLabels(labels: Labels, limits: LabelLimits): LabelsCheck {
  let canonical = true;
  for (let i = 0; i < labels.length; i++) {
    const l = labels[i]!;
    if (l.value === '' || (i > 0 && labels[i - 1]!.name >= l.name)) {
      canonical = false;
      break;
    }
  }
  const out = canonical ? labels : labels.filter((l) => l.value !== '').sort(byName);
  if (out.length === 0) return { ok: false, reason: 'invalid_labels', message: 'series has no labels with values' };
  if (out.length > limits.maxLabelsPerTimeseries) {
    return {
      ok: false,
      reason: 'too_many_labels',
      message: `series ${describe(out)} has ${out.length} labels, more than -maxLabelsPerTimeseries=${limits.maxLabelsPerTimeseries}`,
    };
  }
  for (let i = 0; i < out.length; i++) {
    const l = out[i]!;
    if (l.name === '') return { ok: false, reason: 'invalid_labels', message: `series ${describe(out)} has a label with an empty name` };
    if (i > 0 && out[i - 1]!.name === l.name) {
      return { ok: false, reason: 'invalid_labels', message: `series ${describe(out)} has label "${l.name}" twice` };
    }
    if (l.value.length > limits.maxLabelValueLen || l.name.length > limits.maxLabelValueLen) {
      return {
        ok: false,
        reason: 'label_too_long',
        message: `label "${l.name.slice(0, 64)}" of series ${describe(out)} is longer than -maxLabelValueLen=${limits.maxLabelValueLen}`,
      };
    }
  }
  return { ok: true, labels: out };
}

/** describe renders a label set for error messages, shortened to stay readable. */
export function describe(labels: Labels): string {
  let s = '{' + labels.map((l) => `${l.name}=${JSON.stringify(l.value)}`).join(',') + '}';
  if (s.length > 200) s = s.slice(0, 197) + '...';
  return s;
}
