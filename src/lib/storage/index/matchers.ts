import type { LabelMatcher } from '../../storageapi/api.ts';

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
}

/** MatcherError reports a matcher that cannot be evaluated (a bad regexp). */
export class MatcherError extends Error {
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = 'MatcherError';
  }
}

// An alternation of plain words (the shape Grafana multi-value variables produce) is answered by
// direct lookups instead of scanning every value of the label.
const PLAIN_ALTERNATION = /^[A-Za-z0-9_\-:/ ,@]+(\|[A-Za-z0-9_\-:/ ,@]+)*$/;

// RE2 (PromQL) allows leading flag groups such as (?i); JS takes flags separately.
function toRegExp(src: string): RegExp {
  let flags = 's';
  const lead = /^\(\?([imsU]+)\)/.exec(src);
  if (lead) {
    if (lead[1]!.includes('i')) flags += 'i';
    if (lead[1]!.includes('m')) flags += 'm';
    src = src.slice(lead[0].length);
  }
  return new RegExp(`^(?:${src})$`, flags);
}

/**
 * compileMatcher turns a matcher into a predicate. Regexps are anchored at both ends and "."
 * matches newlines too, as in Prometheus. Throws MatcherError for an invalid regexp.
 */
export function compileMatcher(m: LabelMatcher): CompiledMatcher {
  let matches: (v: string) => boolean;
  let literals: string[] | undefined;
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
        re = toRegExp(m.value);
      } catch (err) {
        throw new MatcherError(`invalid regexp ${JSON.stringify(m.value)} for label "${m.name}": ${(err as Error).message}`, { cause: err });
      }
      const positive = m.type === '=~';
      matches = positive ? (v) => re.test(v) : (v) => !re.test(v);
      if (positive && PLAIN_ALTERNATION.test(m.value)) literals = m.value.split('|');
      break;
    }
    default:
      throw new MatcherError(`unknown matcher type ${JSON.stringify((m as LabelMatcher).type)} for label "${m.name}"`);
  }
  const out: CompiledMatcher = { name: m.name, type: m.type, matches, matchesEmpty: matches('') };
  return literals ? { ...out, literals: literals.filter((l) => l !== '') } : out;
}
