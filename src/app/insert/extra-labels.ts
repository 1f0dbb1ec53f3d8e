import type { Label, MetricRow } from '../../lib/storageapi/index.ts';
import { InsertError } from './errors.ts';

/** parseExtraLabels reads `extra_label=name=value` args; a later arg with the same name wins. */
export function parseExtraLabels(values: readonly string[]): Label[] {
  const byName = new Map<string, string>();
  for (const v of values) {
    const eq = v.indexOf('=');
    if (eq <= 0) throw new InsertError('ERR_INSERT_BAD_ARG', `invalid extra_label ${JSON.stringify(v)}: must look like name=value`);
    byName.set(v.slice(0, eq), v.slice(eq + 1));
  }
  return [...byName].map(([name, value]) => ({ name, value })).sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

/**
 * ExtraLabeler adds extra labels to rows, replacing labels of the same name (the extra label
 * wins: it is how a proxy pins a tenant's writes). An extra label with an empty value removes the
 * label. rawKey stays usable: it is prefixed with the extra labels, so it still names one label set.
 */
export class ExtraLabeler {
  readonly #extra: readonly Label[];
  readonly #keyPrefix: string;

  constructor(extra: readonly Label[]) {
    this.#extra = extra;
    this.#keyPrefix = `${JSON.stringify(extra)}\n`;
  }

  get isEmpty(): boolean {
    return this.#extra.length === 0;
  }

  apply(rows: readonly MetricRow[]): MetricRow[] {
    return rows.map((r) => ({
      labels: merge(r.labels, this.#extra),
      timestamp: r.timestamp,
      value: r.value,
      ...(r.rawKey === undefined ? {} : { rawKey: this.#keyPrefix + r.rawKey }),
    }));
  }
}

/** merge merges two sorted label lists; b wins on equal names; empty values drop the label. */
function merge(a: readonly Label[], b: readonly Label[]): Label[] {
  const out: Label[] = [];
  let i = 0;
  let j = 0;
  while (i < a.length || j < b.length) {
    const x = a[i];
    const y = b[j];
    if (y === undefined || (x !== undefined && x.name < y.name)) {
      out.push(x!);
      i++;
    } else {
      if (x !== undefined && x.name === y.name) i++;
      if (y.value !== '') out.push(y);
      j++;
    }
  }
  return out;
}
