// Label-set helpers. Label sets are arrays sorted by name (storageapi Labels); these helpers
// return new arrays and never mutate their input.

import type { Label, Labels } from '../storageapi/index.ts';

export const METRIC_NAME = '__name__';
const SEP = '\xff';

/** getLabel returns the value of name, or '' when absent (PromQL treats both the same). */
export function getLabel(ls: Labels, name: string): string {
  for (const l of ls) {
    if (l.name === name) return l.value;
  }
  return '';
}

/** setLabel returns ls with name=value (an empty value deletes the label). */
export function setLabel(ls: Labels, name: string, value: string): Labels {
  const out: Label[] = [];
  let done = false;
  for (const l of ls) {
    if (!done && l.name >= name) {
      if (value !== '') out.push({ name, value });
      done = true;
      if (l.name === name) continue;
    }
    out.push(l);
  }
  if (!done && value !== '') out.push({ name, value });
  return out;
}

/** dropLabels returns ls without the given names. */
export function dropLabels(ls: Labels, names: ReadonlySet<string>): Labels {
  return ls.filter((l) => !names.has(l.name));
}

/** keepLabels returns only the labels of ls whose names are given. */
export function keepLabels(ls: Labels, names: ReadonlySet<string>): Labels {
  return ls.filter((l) => names.has(l.name));
}

/** METADATA_LABELS: the metric name and the type/unit labels that travel with it. */
export const METADATA_LABELS: ReadonlySet<string> = new Set([METRIC_NAME, '__type__', '__unit__']);

/** dropMetricName returns ls without the metric name (and its __type__/__unit__ metadata). */
export function dropMetricName(ls: Labels): Labels {
  let i = 0;
  while (i < ls.length && !METADATA_LABELS.has(ls[i]!.name)) i++;
  if (i === ls.length) return ls;
  const out = ls.slice(0, i);
  for (i++; i < ls.length; i++) if (!METADATA_LABELS.has(ls[i]!.name)) out.push(ls[i]!);
  return out;
}

// The helpers called once per series walk labels by index: until V8 optimizes them (after some
// hundred calls, more than a small query's first runs make), a for-of allocates an iterator
// result per label and a callback costs a call per label.

/** labelsKey is an injective string key of a whole label set. */
export function labelsKey(ls: Labels): string {
  let k = '';
  for (let i = 0; i < ls.length; i++) {
    const l = ls[i]!;
    k += l.name + SEP + l.value + SEP;
  }
  return k;
}

/** fromRecord builds sorted Labels from a plain object (empty values dropped). */
export function fromRecord(rec: Readonly<Record<string, string>>): Labels {
  return Object.keys(rec)
    .filter((k) => rec[k] !== '')
    .sort()
    .map((name) => ({ name, value: rec[name]! }));
}

/** formatLabels writes a label set as `name{a="b"}` for messages. */
export function formatLabels(ls: Labels): string {
  const name = getLabel(ls, METRIC_NAME);
  const rest = ls.filter((l) => l.name !== METRIC_NAME).map((l) => `${l.name}=${JSON.stringify(l.value)}`);
  return `${name}{${rest.join(', ')}}`;
}

/** compareLabels orders label sets as Prometheus does (by name, then value, pairwise). */
export function compareLabels(a: Labels, b: Labels): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const x = a[i]!;
    const y = b[i]!;
    if (x.name !== y.name) return x.name < y.name ? -1 : 1;
    if (x.value !== y.value) return x.value < y.value ? -1 : 1;
  }
  return a.length - b.length;
}
