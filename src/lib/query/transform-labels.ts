// Label-manipulating functions: Prometheus' label_replace/label_join and MetricsQL's label_*.

import { isValidUtf8 } from '../promql/index.ts';
import { compileAnchored, RegexpSyntaxError, translateRegexp } from '../regexp/index.ts';
import type { Labels } from '../storageapi/index.ts';
import { QueryError } from './errors.ts';
import { dropLabels, getLabel, keepLabels, METRIC_NAME, setLabel } from './labels.ts';
import { parseGoFloat } from './histogram.ts';
import { mergeSameLabels, stringArg, stringArgs, vector, vectorArg, type TransformCall, type TransformFunction } from './transform-call.ts';
import type { Series } from './types.ts';

function validLabelName(name: string, what: string): string {
  if (name === '' || !isValidUtf8(name)) throw new QueryError(`invalid ${what} label name in ${JSON.stringify(name)}`);
  return name;
}

/** expandTemplate implements Go's Regexp.Expand: $1, ${1}, $name, ${name}, $$. */
export function expandTemplate(template: string, m: RegExpMatchArray): string {
  let out = '';
  let i = 0;
  while (i < template.length) {
    const d = template.indexOf('$', i);
    if (d < 0) break;
    out += template.slice(i, d);
    i = d + 1;
    if (template[i] === '$') {
      out += '$';
      i++;
      continue;
    }
    const ref = /^\{([A-Za-z0-9_]+)\}|^([A-Za-z0-9_]+)/.exec(template.slice(i));
    if (ref === null) {
      out += '$';
      continue;
    }
    i += ref[0].length;
    const name = ref[1] ?? ref[2]!;
    const value = /^\d+$/.test(name) ? m[Number(name)] : m.groups?.[name];
    out += value ?? '';
  }
  return out + template.slice(i);
}

/** relabel applies f to every series' labels, then merges series that now look alike. */
function relabel(series: readonly Series[], f: (s: Series) => { labels: Labels; dropName: boolean } | null): Series[] {
  const out: Series[] = [];
  for (const s of series) {
    const r = f(s);
    if (r !== null) out.push({ ...s, labels: r.labels, dropName: r.dropName });
  }
  return mergeSameLabels(out);
}

function withLabel(s: Series, name: string, value: string): { labels: Labels; dropName: boolean } {
  return { labels: setLabel(s.labels, name, value), dropName: name === METRIC_NAME ? false : s.dropName };
}

function pairs(c: TransformCall, from: number): [string, string][] {
  const a = stringArgs(c, from);
  if (a.length % 2 !== 0) throw new QueryError(`${c.node.func}() expects label name/value pairs, got an odd number of strings`);
  const out: [string, string][] = [];
  for (let i = 0; i < a.length; i += 2) out.push([a[i]!, a[i + 1]!]);
  return out;
}

function compileOrFail(re: string, func: string, anchored: boolean): RegExp {
  try {
    return anchored ? compileAnchored(re) : new RegExp(translateRegexp(re), 'gsu');
  } catch (err) {
    if (err instanceof RegexpSyntaxError || err instanceof SyntaxError) {
      throw new QueryError(`invalid regular expression in ${func}(): ${re}`, 'execution', { cause: err });
    }
    throw err;
  }
}

function labelMatch(want: boolean): TransformFunction {
  return (c) => {
    const name = stringArg(c, 1);
    const re = compileOrFail(stringArg(c, 2), c.node.func, true);
    return vector(vectorArg(c, 0).filter((s) => re.test(getLabel(s.labels, name)) === want));
  };
}

function caseChange(upper: boolean): TransformFunction {
  return (c) => {
    const names = stringArgs(c, 1);
    return vector(relabel(vectorArg(c, 0), (s) => {
      let r = { labels: s.labels, dropName: s.dropName };
      for (const n of names) {
        const v = getLabel(s.labels, n);
        r = withLabel({ ...s, labels: r.labels, dropName: r.dropName }, n, upper ? v.toUpperCase() : v.toLowerCase());
      }
      return r;
    }));
  };
}

/** LABEL_TRANSFORMS: functions that rewrite label sets. */
export const LABEL_TRANSFORMS: Readonly<Record<string, TransformFunction>> = {
  label_replace: (c) => {
    const dst = validLabelName(stringArg(c, 1), 'destination');
    const repl = stringArg(c, 2);
    const src = stringArg(c, 3);
    const re = compileOrFail(stringArg(c, 4), 'label_replace', true);
    return vector(relabel(vectorArg(c, 0), (s) => {
      const m = re.exec(getLabel(s.labels, src));
      return m === null ? { labels: s.labels, dropName: s.dropName } : withLabel(s, dst, expandTemplate(repl, m));
    }));
  },
  label_join: (c) => {
    const dst = validLabelName(stringArg(c, 1), 'destination');
    const sep = stringArg(c, 2);
    const srcs = stringArgs(c, 3).map((n) => validLabelName(n, 'source'));
    return vector(relabel(vectorArg(c, 0), (s) => withLabel(s, dst, srcs.map((n) => getLabel(s.labels, n)).join(sep))));
  },
  label_set: (c) => {
    const ps = pairs(c, 1);
    return vector(relabel(vectorArg(c, 0), (s) => ps.reduce((r, [n, v]) => withLabel({ ...s, ...r }, n, v), { labels: s.labels, dropName: s.dropName })));
  },
  alias: (c) => {
    const name = stringArg(c, 1);
    return vector(relabel(vectorArg(c, 0), (s) => withLabel(s, METRIC_NAME, name)));
  },
  label_del: (c) => {
    const names = new Set(stringArgs(c, 1));
    return vector(relabel(vectorArg(c, 0), (s) => ({ labels: dropLabels(s.labels, names), dropName: s.dropName })));
  },
  label_keep: (c) => {
    const names = new Set(stringArgs(c, 1));
    return vector(relabel(vectorArg(c, 0), (s) => ({ labels: keepLabels(s.labels, names), dropName: s.dropName })));
  },
  label_copy: (c) => labelCopy(c, false),
  label_move: (c) => labelCopy(c, true),
  label_map: (c) => {
    const name = stringArg(c, 1);
    const map = new Map(pairs(c, 2));
    return vector(relabel(vectorArg(c, 0), (s) => {
      const to = map.get(getLabel(s.labels, name));
      return to === undefined ? { labels: s.labels, dropName: s.dropName } : withLabel(s, name, to);
    }));
  },
  label_value: (c) => {
    const name = stringArg(c, 1);
    return vector(vectorArg(c, 0).flatMap((s) => {
      const v = parseGoFloat(getLabel(s.labels, name));
      if (Number.isNaN(v)) return [];
      return [{ ...s, values: s.values.map(() => v), dropName: true }];
    }));
  },
  label_match: labelMatch(true),
  label_mismatch: labelMatch(false),
  label_lowercase: caseChange(false),
  label_uppercase: caseChange(true),
  label_transform: (c) => {
    const name = stringArg(c, 1);
    const re = compileOrFail(stringArg(c, 2), 'label_transform', false);
    const repl = stringArg(c, 3);
    return vector(relabel(vectorArg(c, 0), (s) => {
      const v = getLabel(s.labels, name);
      let out = '';
      let last = 0;
      for (const m of v.matchAll(re)) {
        out += v.slice(last, m.index) + expandTemplate(repl, m);
        last = m.index + m[0].length;
      }
      return withLabel(s, name, out + v.slice(last));
    }));
  },
  drop_common_labels: (c) => {
    const all = c.args.flatMap((_, i) => vectorArg(c, i));
    const common = new Set<string>();
    for (const l of all[0]?.labels ?? []) {
      if (all.every((s) => getLabel(s.labels, l.name) === l.value)) common.add(l.name);
    }
    return vector(relabel(all, (s) => ({ labels: dropLabels(s.labels, common), dropName: s.dropName })));
  },
};

function labelCopy(c: TransformCall, move: boolean): ReturnType<TransformFunction> {
  const ps = pairs(c, 1);
  return vector(relabel(vectorArg(c, 0), (s) => {
    let r = { labels: s.labels, dropName: s.dropName };
    for (const [from, to] of ps) {
      const v = getLabel(s.labels, from);
      if (v === '') continue;
      r = withLabel({ ...s, ...r }, to, v);
      if (move && from !== to) r = { labels: dropLabels(r.labels, new Set([from])), dropName: r.dropName };
    }
    return r;
  }));
}
