// Label selectors: the text form used in list/watch requests and the structured LabelSelector
// of specs, both reduced to one list of requirements.

/** Requirement is one selector term. */
export interface Requirement {
  readonly key: string;
  readonly operator: 'In' | 'NotIn' | 'Exists' | 'DoesNotExist';
  readonly values: readonly string[];
}

/** Selector is a conjunction of requirements; the empty selector matches everything. */
export type Selector = readonly Requirement[];

/** LabelSelectorSpec is the structured form (matchLabels + matchExpressions). */
export interface LabelSelectorSpec {
  readonly matchLabels?: Readonly<Record<string, string>>;
  readonly matchExpressions?: readonly { readonly key: string; readonly operator: Requirement['operator']; readonly values?: readonly string[] }[];
}

/** SelectorParseError is the only error parseSelector throws. */
export class SelectorParseError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SelectorParseError';
  }
}

const KEY = /^([a-z0-9]([-a-z0-9.]*[a-z0-9])?\/)?[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?$/;
const VALUE = /^([A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?)?$/;

function checkKey(key: string): string {
  if (!KEY.test(key) || key.length > 316) throw new SelectorParseError(`invalid label key ${JSON.stringify(key)}`);
  return key;
}

function checkValue(value: string): string {
  if (!VALUE.test(value) || value.length > 63) throw new SelectorParseError(`invalid label value ${JSON.stringify(value)}`);
  return value;
}

// Split on commas that are not inside a parenthesised value set.
function splitTerms(text: string): string[] {
  const terms: string[] = [];
  let depth = 0;
  let start = 0;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i];
    if (ch === '(') depth++;
    else if (ch === ')') depth--;
    if (depth < 0 || depth > 1) throw new SelectorParseError('unbalanced parentheses in selector');
    if (ch === ',' && depth === 0) {
      terms.push(text.slice(start, i));
      start = i + 1;
    }
  }
  if (depth !== 0) throw new SelectorParseError('unbalanced parentheses in selector');
  terms.push(text.slice(start));
  return terms.map((t) => t.trim());
}

function parseTerm(term: string): Requirement {
  if (term === '') throw new SelectorParseError('empty selector term');
  const set = /^(\S+)\s+(in|notin)\s*\(([^()]*)\)$/.exec(term);
  if (set !== null) {
    const values = set[3]!.split(',').map((v) => checkValue(v.trim()));
    return { key: checkKey(set[1]!), operator: set[2] === 'in' ? 'In' : 'NotIn', values };
  }
  const eq = /^([^=!\s]+)\s*(==|=|!=)\s*(\S*)$/.exec(term);
  if (eq !== null) return { key: checkKey(eq[1]!), operator: eq[2] === '!=' ? 'NotIn' : 'In', values: [checkValue(eq[3]!)] };
  if (term.startsWith('!')) return { key: checkKey(term.slice(1).trim()), operator: 'DoesNotExist', values: [] };
  return { key: checkKey(term), operator: 'Exists', values: [] };
}

/** parseSelector parses the text form ("a=b,c!=d,e in (x,y),f,!g"); throws SelectorParseError. */
export function parseSelector(text: string): Selector {
  if (text.trim() === '') return [];
  return splitTerms(text).map(parseTerm);
}

/** fromLabelSelector converts the structured form; undefined yields undefined (matches nothing). */
export function fromLabelSelector(spec: LabelSelectorSpec | undefined): Selector | undefined {
  if (spec === undefined) return undefined;
  const reqs: Requirement[] = [];
  for (const key of Object.keys(spec.matchLabels ?? {}).sort()) reqs.push({ key, operator: 'In', values: [spec.matchLabels![key]!] });
  for (const e of spec.matchExpressions ?? []) reqs.push({ key: e.key, operator: e.operator, values: [...(e.values ?? [])] });
  return reqs;
}

/** matches reports whether labels satisfy every requirement. */
export function matches(selector: Selector, labels: Readonly<Record<string, string>> | undefined): boolean {
  const l = labels ?? {};
  return selector.every((r) => {
    const has = Object.hasOwn(l, r.key);
    switch (r.operator) {
      case 'In':
        return has && r.values.includes(l[r.key]!);
      case 'NotIn':
        return !has || !r.values.includes(l[r.key]!);
      case 'Exists':
        return has;
      case 'DoesNotExist':
        return !has;
    }
  });
}

/** selectorString renders a selector in the text form accepted by the API server. */
export function selectorString(selector: Selector): string {
  return selector
    .map((r) => {
      switch (r.operator) {
        case 'In':
          return r.values.length === 1 ? `${r.key}=${r.values[0]}` : `${r.key} in (${r.values.join(',')})`;
        case 'NotIn':
          return r.values.length === 1 ? `${r.key}!=${r.values[0]}` : `${r.key} notin (${r.values.join(',')})`;
        case 'Exists':
          return r.key;
        case 'DoesNotExist':
          return `!${r.key}`;
      }
    })
    .join(',');
}

/** labelsSelector is the equality selector of a label map, in the text form. */
export function labelsSelector(labels: Readonly<Record<string, string>>): string {
  return selectorString(fromLabelSelector({ matchLabels: labels })!);
}
