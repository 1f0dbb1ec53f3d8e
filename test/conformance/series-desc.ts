// Series descriptions of the promqltest language: `metric{l="v"} 1+2x3 _ stale 5`.
// The metric part is parsed with our PromQL parser (quoted names, escapes); the value part
// with the expanding notation (`a+bxN` is N+1 values a, a+b, …; `_xN` is N missing values).

import { parse } from '../../src/lib/promql/index.ts';
import type { Labels } from '../../src/lib/storageapi/index.ts';
import { ScriptError } from './script-error.ts';

/** SequenceValue: one slot of a series description. */
export type SequenceValue =
  | { readonly kind: 'omitted' }
  | { readonly kind: 'value'; readonly v: number }
  | { readonly kind: 'stale' }
  | { readonly kind: 'histogram' };

export interface SeriesDesc {
  readonly labels: Labels;
  readonly values: SequenceValue[];
}

/** splitMetric returns [metric text, rest] — the metric ends after its identifier and braces. */
export function splitMetric(line: string): [string, string] {
  let i = 0;
  while (i < line.length && /[a-zA-Z0-9_:]/.test(line[i]!)) i++;
  if (line[i] === '{') {
    let quote = '';
    for (i++; i < line.length; i++) {
      const ch = line[i]!;
      if (quote !== '') {
        if (ch === '\\' && quote !== '`') i++;
        else if (ch === quote) quote = '';
      } else if (ch === '"' || ch === "'" || ch === '`') {
        quote = ch;
      } else if (ch === '}') {
        i++;
        break;
      }
    }
  }
  if (i === 0) throw new ScriptError(`no metric at the start of ${JSON.stringify(line)}`);
  return [line.slice(0, i), line.slice(i)];
}

/** parseLabels turns `name{a="b"}` (or `{}`) into a sorted label set via the PromQL parser. */
export function parseLabels(metric: string): Labels {
  if (/^\{\s*\}$/.test(metric)) return [];
  const e = parse(metric);
  if (e.type !== 'VectorSelector' || e.matcherSets.length !== 1) throw new ScriptError(`not a label set: ${metric}`);
  const rec = new Map<string, string>();
  if (e.name !== '') rec.set('__name__', e.name);
  for (const m of e.matcherSets[0]!) {
    if (m.op !== '=') throw new ScriptError(`label sets use "=", got ${m.op} in ${metric}`);
    rec.set(m.name, m.value);
  }
  return [...rec].filter(([, v]) => v !== '').sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([name, value]) => ({ name, value }));
}

const NUM = String.raw`(?:inf(?:inity)?|nan|\d+(?:\.\d*)?(?:e[+-]?\d+)?|\.\d+(?:e[+-]?\d+)?)`;
const ITEM = new RegExp(`^([+-]?${NUM})(?:([+-]${NUM})?x(\\d+))?$`, 'i');

function parseNum(s: string): number {
  const t = s.toLowerCase().replace(/^\+/, '');
  if (t === 'inf' || t === 'infinity') return Infinity;
  if (t === '-inf' || t === '-infinity') return -Infinity;
  if (t === 'nan' || t === '-nan') return NaN;
  return Number(t);
}

/** splitValues splits the value part; `{{…}}` histogram items may contain spaces. */
function splitValues(rest: string): string[] {
  const out: string[] = [];
  let i = 0;
  while (i < rest.length) {
    while (i < rest.length && /\s/.test(rest[i]!)) i++;
    if (i >= rest.length) break;
    let tok = '';
    while (i < rest.length && !/\s/.test(rest[i]!)) {
      if (rest.startsWith('{{', i)) {
        const j = rest.indexOf('}}', i);
        if (j < 0) throw new ScriptError('unterminated native histogram');
        tok += rest.slice(i, j + 2);
        i = j + 2;
      } else {
        tok += rest[i++];
      }
    }
    out.push(tok);
  }
  return out;
}

/** expandItem expands one value token. */
export function expandItem(tok: string): SequenceValue[] {
  if (tok === '_') return [{ kind: 'omitted' }];
  let m = /^_x(\d+)$/.exec(tok);
  if (m) return Array.from({ length: Number(m[1]) }, () => ({ kind: 'omitted' as const }));
  if (tok === 'stale') return [{ kind: 'stale' }];
  m = /^stalex(\d+)$/.exec(tok);
  if (m) return Array.from({ length: Number(m[1]) + 1 }, () => ({ kind: 'stale' as const }));
  if (tok.startsWith('{{')) {
    const rep = /x(\d+)$/.exec(tok.slice(tok.lastIndexOf('}}')));
    return Array.from({ length: rep ? Number(rep[1]) + 1 : 1 }, () => ({ kind: 'histogram' as const }));
  }
  m = ITEM.exec(tok);
  if (!m) throw new ScriptError(`bad series value ${JSON.stringify(tok)}`);
  const base = parseNum(m[1]!);
  if (m[3] === undefined) return [{ kind: 'value', v: base }];
  const delta = m[2] === undefined ? 0 : parseNum(m[2]);
  const out: SequenceValue[] = [];
  // Repeated addition, as the reference harness accumulates (this matters for float rounding).
  let v = base;
  for (let k = 0; k <= Number(m[3]); k++) {
    out.push({ kind: 'value', v });
    v += delta;
  }
  return out;
}

/** parseSeriesDesc parses a whole series description line. */
export function parseSeriesDesc(line: string): SeriesDesc {
  const [metric, rest] = splitMetric(line.trim());
  return { labels: parseLabels(metric), values: splitValues(rest).flatMap(expandItem) };
}
