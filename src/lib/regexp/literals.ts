// What an index can look up instead of testing every value: many PromQL regexps are a finite
// set of literal values and literal heads followed by `.*` (`host-000[0-4].*`, `eth.*`,
// `(api|web)-[12]`, Grafana's `a|b|c`). VictoriaMetrics scans only those keys; valueSets gives
// the same sets for a fully anchored RE2 pattern, or undefined when the pattern is not of that
// shape. Conservative: anything outside a small, exactly understood subset (flags, classes
// beyond plain ASCII letters and digits, repetitions other than `?` and a trailing `.*`) gives
// undefined, and the caller tests values with the compiled regexp as before.

/** ValueSets: the values a pattern matches are exactly `exact` and those starting with one of `prefixes`. */
export interface ValueSets {
  readonly exact: readonly string[];
  readonly prefixes: readonly string[];
}

// One alternative of a parsed piece: text, then (any) any suffix or (!any) the end.
interface Alt {
  readonly text: string;
  readonly any: boolean;
}

/** Expansions above this many alternatives are not worth listing (the caller scans instead). */
export const MAX_VALUE_SETS = 256;

// Characters that are literals in RE2 outside a class (no escape needed) and that this
// analysis accepts as such. Everything else must be escaped punctuation or gives up.
const PLAIN = /^[A-Za-z0-9_\-:/ ,@=%#!~'"<>;&`]$/;
// Punctuation RE2 accepts escaped as itself (`\.`, `\-`, …).
const PUNCT = /^[!-/:-@[-`{-~]$/;
// Characters of a class this analysis expands; ranges only within digits, lower or upper letters.
const CLASS_CHAR = /^[A-Za-z0-9_:/ ,@=.]$/;

class GiveUp extends Error {}

/**
 * valueSets returns the exact values and literal prefixes a fully anchored RE2 pattern (PromQL
 * `=~`) selects, when the pattern is a finite union of literals, each optionally followed by a
 * trailing `.*` (`.` matches newlines in PromQL, so `.*` is any suffix); undefined otherwise or
 * when more than max alternatives would be listed. Covered literals are dropped: `a.*|ab` gives
 * prefixes ["a"] only, so the sets list disjoint ranges of values. The pattern must be valid
 * (callers compile it first): invalid input may give undefined or a meaningless answer.
 */
export function valueSets(re: string, max = MAX_VALUE_SETS): ValueSets | undefined {
  const p = new Parser(re, max);
  let alts: Alt[];
  try {
    alts = p.alternation();
    if (p.i !== re.length) return undefined;
  } catch (err) {
    if (err instanceof GiveUp) return undefined;
    throw err;
  }
  return normalise(alts);
}

// normalise drops duplicates and alternatives covered by a shorter prefix.
function normalise(alts: readonly Alt[]): ValueSets {
  const prefixes = [...new Set(alts.filter((a) => a.any).map((a) => a.text))].sort();
  const kept: string[] = [];
  for (const p of prefixes) if (!kept.some((k) => p.startsWith(k))) kept.push(p);
  const covered = (v: string): boolean => kept.some((k) => v.startsWith(k));
  const exact = [...new Set(alts.filter((a) => !a.any && !covered(a.text)).map((a) => a.text))];
  return { exact, prefixes: kept };
}

class Parser {
  readonly #re: string;
  readonly #max: number;
  i = 0;

  constructor(re: string, max: number) {
    this.#re = re;
    this.#max = max;
  }

  alternation(): Alt[] {
    const out = this.concat();
    while (this.#re[this.i] === '|') {
      this.i++;
      out.push(...this.concat());
      if (out.length > this.#max) throw new GiveUp();
    }
    return out;
  }

  concat(): Alt[] {
    let acc: Alt[] = [{ text: '', any: false }];
    for (;;) {
      const ch = this.#re[this.i];
      if (ch === undefined || ch === '|' || ch === ')') return acc;
      acc = this.#product(acc, this.piece());
    }
  }

  // product is the concatenation of two sets; a `.*` may only be followed by what can be empty.
  #product(xs: readonly Alt[], ys: readonly Alt[]): Alt[] {
    if (xs.length * ys.length > this.#max) throw new GiveUp();
    const yEmpty = ys.some((y) => y.text === '');
    const out: Alt[] = [];
    for (const x of xs) {
      if (x.any) {
        // x.text, any suffix, then one of ys: any suffix again exactly when ys holds "".
        if (!yEmpty) throw new GiveUp();
        out.push(x);
        continue;
      }
      for (const y of ys) out.push({ text: x.text + y.text, any: y.any });
    }
    return out;
  }

  piece(): Alt[] {
    const re = this.#re;
    if (re[this.i] === '.') {
      if (re[this.i + 1] !== '*' || isRepeat(re[this.i + 2])) throw new GiveUp();
      this.i += 2;
      return [{ text: '', any: true }];
    }
    const atom = this.#atom();
    const q = re[this.i];
    if (q === '?') {
      this.i++;
      if (isRepeat(re[this.i])) throw new GiveUp(); // lazy or nested: not expanded
      return [...atom, { text: '', any: false }];
    }
    if (isRepeat(q)) throw new GiveUp();
    return atom;
  }

  #atom(): Alt[] {
    const re = this.#re;
    const ch = re[this.i]!;
    if (ch === '(') {
      this.i++;
      if (re[this.i] === '?') {
        if (re[this.i + 1] !== ':') throw new GiveUp(); // flags, named groups
        this.i += 2;
      }
      const inner = this.alternation();
      if (re[this.i] !== ')') throw new GiveUp();
      this.i++;
      return inner;
    }
    if (ch === '[') return this.#class();
    if (ch === '\\') {
      const e = re[this.i + 1] ?? '';
      this.i += 2;
      if (e === 'd') return [...'0123456789'].map((d) => ({ text: d, any: false }));
      if (!PUNCT.test(e)) throw new GiveUp();
      return [{ text: e, any: false }];
    }
    if (!PLAIN.test(ch)) throw new GiveUp();
    this.i++;
    return [{ text: ch, any: false }];
  }

  // #class expands `[…]` of plain characters and ranges within digits or one case of letters.
  #class(): Alt[] {
    const re = this.#re;
    let j = this.i + 1;
    const chars = new Set<string>();
    if (re[j] === '^' || re[j] === ']') throw new GiveUp();
    if (re[j] === '-') {
      chars.add('-');
      j++;
    }
    while (j < re.length && re[j] !== ']') {
      const a = re[j]!;
      if (a === '-' && re[j + 1] === ']') {
        chars.add('-');
        j++;
        continue;
      }
      if (!CLASS_CHAR.test(a)) throw new GiveUp();
      if (re[j + 1] === '-' && re[j + 2] !== ']') {
        const b = re[j + 2] ?? '';
        if (!sameKind(a, b) || b < a) throw new GiveUp();
        for (let c = a.charCodeAt(0); c <= b.charCodeAt(0); c++) chars.add(String.fromCharCode(c));
        j += 3;
      } else {
        chars.add(a);
        j++;
      }
    }
    if (re[j] !== ']' || chars.size > this.#max) throw new GiveUp();
    this.i = j + 1;
    return [...chars].map((c) => ({ text: c, any: false }));
  }
}

// isRepeat: c starts a repetition operator (a `{` that is not one gives up too: it is rare).
const isRepeat = (c: string | undefined): boolean => c === '*' || c === '+' || c === '?' || c === '{';

function sameKind(a: string, b: string): boolean {
  const kind = (c: string): number => (c >= '0' && c <= '9' ? 1 : c >= 'a' && c <= 'z' ? 2 : c >= 'A' && c <= 'Z' ? 3 : 0);
  return kind(a) !== 0 && kind(a) === kind(b);
}
