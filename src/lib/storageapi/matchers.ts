// The meaning of a LabelMatcher, once for every implementation of the contract: the storage
// engine's index search and the in-memory searcher of src/lib/query both compile matchers here,
// so `=~`, `!~` and the empty-value rule cannot drift apart.

import { compileAnchored, valueSets } from '../regexp/index.ts';
import type { LabelMatcher, Labels } from './api.ts';
import { MatcherError } from './errors.ts';

/** CompiledMatcher is a LabelMatcher ready to test values. */
export interface CompiledMatcher {
  readonly name: string;
  readonly type: LabelMatcher['type'];
  /** matches tests a label value ("" for a series without the label). */
  readonly matches: (value: string) => boolean;
  /** matchesEmpty: the matcher also selects series that lack the label. */
  readonly matchesEmpty: boolean;
  /** literals, when set, are the only values that match (equality or a plain alternation). */
  readonly literals?: readonly string[];
  /**
   * ranges, when set, are the values the matcher selects as index key ranges: exactly the values
   * in `exact` and those starting with one of `prefixes` (non-empty: without prefixes the values
   * are `literals`). From regexps such as `host-000[0-4].*` (src/lib/regexp valueSets).
   */
  readonly ranges?: { readonly exact: readonly string[]; readonly prefixes: readonly string[] };
  /**
   * prefix, when set (non-empty), starts every value the matcher selects (a regexp with a literal
   * head such as `eth.*`): an index scan may skip values without it.
   */
  readonly prefix?: string;
}

// An alternation of plain words (the shape Grafana multi-value variables produce) is answered by
// direct lookups instead of scanning every value of the label. These characters are literals in
// RE2, so the words are exactly the values that match.
const PLAIN_ALTERNATION = /^[A-Za-z0-9_\-:/ ,@=]+(\|[A-Za-z0-9_\-:/ ,@=]+)*$/;
const PLAIN_HEAD = /^[A-Za-z0-9_\-:/ ,@=]*/;

/**
 * literalPrefix returns the literal text every match of RE2 pattern re starts with ("" when there
 * is none). Conservative: any `|` gives "" (an alternation may drop the head), and a head
 * character followed by a repetition operator is not part of the prefix.
 */
export function literalPrefix(re: string): string {
  if (re.includes('|')) return '';
  const head = PLAIN_HEAD.exec(re)![0];
  const next = re[head.length];
  if (next === '?' || next === '*' || next === '+' || next === '{') return head.slice(0, -1);
  return head;
}

/**
 * compileMatcher turns a matcher into a predicate. Regexps have PromQL (RE2) semantics through
 * src/lib/regexp's compileAnchored: anchored at both ends, "." matches newlines, flag groups such
 * as `(?i)` anywhere. Throws MatcherError for an invalid regexp or an unknown matcher type.
 */
export function compileMatcher(m: LabelMatcher): CompiledMatcher {
  let matches: (v: string) => boolean;
  let literals: string[] | undefined;
  let prefix = '';
  let ranges: CompiledMatcher['ranges'];
  switch (m.type) {
    case '=':
      matches = (v) => v === m.value;
      literals = [m.value];
      break;
    case '!=':
      matches = (v) => v !== m.value;
      break;
    case '=~':
    case '!~': {
      let re: RegExp;
      try {
        re = compileAnchored(m.value);
      } catch (err) {
        throw new MatcherError(`invalid regexp ${JSON.stringify(m.value)} for label "${m.name}": ${(err as Error).message}`, { cause: err });
      }
      const positive = m.type === '=~';
      matches = positive ? (v) => re.test(v) : (v) => !re.test(v);
      if (positive && PLAIN_ALTERNATION.test(m.value)) literals = m.value.split('|');
      else if (positive) {
        const sets = valueSets(m.value);
        if (sets !== undefined && sets.prefixes.length === 0) literals = [...sets.exact];
        else if (sets !== undefined) ranges = sets;
        else prefix = literalPrefix(m.value);
      }
      break;
    }
    default:
      throw new MatcherError(`unknown matcher type ${JSON.stringify((m as LabelMatcher).type)} for label "${m.name}"`);
  }
  const out: CompiledMatcher = { name: m.name, type: m.type, matches, matchesEmpty: matches('') };
  if (literals) return { ...out, literals: literals.filter((l) => l !== '') };
  if (ranges) return { ...out, ranges };
  return prefix !== '' ? { ...out, prefix } : out;
}

/**
 * labelsMatch: every matcher of set accepts labels, a missing label reading as "" (PromQL). A
 * plain loop: the storage engine calls it per candidate series when it filters by labels.
 */
export function labelsMatch(labels: Labels, set: readonly CompiledMatcher[]): boolean {
  for (const m of set) {
    let value = '';
    for (const l of labels) {
      if (l.name === m.name) {
        value = l.value;
        break;
      }
    }
    if (!m.matches(value)) return false;
  }
  return true;
}
