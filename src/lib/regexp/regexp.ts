// PromQL regexps are Go RE2 syntax, fully anchored, with `.` matching newlines. JS RegExp
// differs in details that real queries use: `(?i)` flag groups, `\Q…\E`, `[[:alpha:]]`,
// `\z`, `(?P<name>…)`, escaped punctuation that JS's unicode mode rejects, `\x{…}`. This
// module translates the RE2 syntax into an equivalent JS pattern (unicode mode).

/** RegexpSyntaxError: the pattern is not valid RE2 (or uses a feature JS cannot express). */
export class RegexpSyntaxError extends Error {
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = 'RegexpSyntaxError';
  }
}

const POSIX_CLASSES: Readonly<Record<string, string>> = {
  alnum: '0-9A-Za-z', alpha: 'A-Za-z', ascii: '\\x00-\\x7F', blank: '\\t ', cntrl: '\\x00-\\x1F\\x7F',
  digit: '0-9', graph: '!-~', lower: 'a-z', print: ' -~', punct: '!-\\/:-@\\[-`{-~',
  space: '\\t\\n\\v\\f\\r ', upper: 'A-Z', word: '0-9A-Za-z_', xdigit: '0-9A-Fa-f',
};

const JS_SYNTAX = new Set('^$\\.*+?()[]{}|/-'.split(''));
const PERL_CLASSES = new Set(['d', 'D', 'w', 'W', 's', 'S']);

const escapeLiteral = (ch: string): string => {
  if (JS_SYNTAX.has(ch)) return `\\${ch}`;
  const cp = ch.codePointAt(0)!;
  if (cp < 0x20 || cp === 0x7f) return `\\u{${cp.toString(16)}}`;
  return ch;
};

/** Translation state: the output so far and the open groups awaiting a flag-group close. */
interface GroupFrame {
  pendingCloses: number;
}

/**
 * translateRegexp converts an RE2 pattern to a JS pattern for `new RegExp(p, 'su')`
 * (not anchored: callers add anchors). Throws RegexpSyntaxError on invalid input.
 */
export function translateRegexp(re: string): string {
  let out = '';
  const frames: GroupFrame[] = [{ pendingCloses: 0 }];
  // prev: what the last emitted item was, to validate repetition operators as RE2 does.
  let prev: 'none' | 'atom' | 'quant' | 'lazy' = 'none';
  const quantifier = (text: string): void => {
    if (prev === 'quant' && text === '?') prev = 'lazy';
    else if (prev === 'atom') prev = 'quant';
    else if (prev === 'none') throw new RegexpSyntaxError(`missing argument to repetition operator in regexp "${re}"`);
    else throw new RegexpSyntaxError(`invalid nested repetition operator in regexp "${re}"`);
    out += text;
  };
  let i = 0;
  while (i < re.length) {
    const ch = String.fromCodePoint(re.codePointAt(i)!);
    if (ch === '\\') {
      const r = translateEscape(re, i, false);
      out += r.text;
      i = r.next;
      prev = r.text === '^' || r.text === '$' || r.text === '' ? 'none' : 'atom';
    } else if (ch === '[') {
      const r = translateClass(re, i);
      out += r.text;
      i = r.next;
      prev = 'atom';
    } else if (ch === '(') {
      const r = translateGroupOpen(re, i, frames);
      out += r.text;
      i = r.next;
      prev = 'none';
    } else if (ch === ')') {
      const frame = frames.pop();
      if (frame === undefined || frames.length === 0) throw new RegexpSyntaxError(`unexpected ) in regexp "${re}"`);
      out += ')'.repeat(frame.pendingCloses) + ')';
      i++;
      prev = 'atom';
    } else if (ch === '{') {
      const m = /^\{(\d+)(,(\d*))?\}/.exec(re.slice(i));
      if (m && prev !== 'none') {
        const min = Number(m[1]);
        const max = m[3] ? Number(m[3]) : min;
        if (min > 1000 || max > 1000 || max < min) throw new RegexpSyntaxError(`invalid repeat count in regexp "${re}"`);
        quantifier(m[0]);
        i += m[0].length;
      } else {
        out += '\\{';
        i++;
        prev = 'atom';
      }
    } else if (ch === '*' || ch === '+' || ch === '?') {
      quantifier(ch);
      i++;
    } else if (ch === '|') {
      out += ch;
      i++;
      prev = 'none';
    } else if (ch === '^' || ch === '$') {
      out += ch;
      i++;
      prev = 'none';
    } else {
      out += ch === '}' || ch === '/' ? `\\${ch}` : ch;
      i += ch.length;
      prev = 'atom';
    }
  }
  if (frames.length !== 1) throw new RegexpSyntaxError(`missing closing ) in regexp "${re}"`);
  return out + ')'.repeat(frames[0]!.pendingCloses);
}

function translateGroupOpen(re: string, i: number, frames: GroupFrame[]): { text: string; next: number } {
  if (re[i + 1] !== '?') {
    frames.push({ pendingCloses: 0 });
    return { text: '(', next: i + 1 };
  }
  const rest = re.slice(i + 2);
  const named = /^P?<([A-Za-z_][A-Za-z0-9_]*)>/.exec(rest);
  if (named) {
    frames.push({ pendingCloses: 0 });
    return { text: `(?<${named[1]}>`, next: i + 2 + named[0].length };
  }
  const flags = /^([imsU]*)(?:-([imsU]*))?([:)])/.exec(rest);
  if (!flags || (flags[1] === '' && flags[2] === undefined && flags[3] === ')')) {
    throw new RegexpSyntaxError(`invalid or unsupported group syntax in regexp "${re}"`);
  }
  const on = flags[1] ?? '';
  const off = flags[2] ?? '';
  if (on.includes('U') || off.includes('U')) throw new RegexpSyntaxError(`ungreedy flag (?U) is not supported in regexp "${re}"`);
  const mod = jsModifier(on, off);
  const next = i + 2 + flags[0].length;
  if (flags[3] === ':') {
    frames.push({ pendingCloses: 0 });
    return { text: mod === '' ? '(?:' : `(?${mod}:`, next };
  }
  // `(?i)` applies to the rest of the enclosing group: open a modifier group closed with it.
  if (mod === '') return { text: '', next };
  frames[frames.length - 1]!.pendingCloses++;
  return { text: `(?${mod}:`, next };
}

// jsModifier builds a JS modifier spec; `s` is always on in our patterns and `m` stays off
// unless asked (RE2's default OneLine matches JS without the m flag).
function jsModifier(on: string, off: string): string {
  const plus = [...new Set(on.replace('s', ''))].join('');
  const minus = [...new Set(off)].join('');
  if (plus === '' && minus === '') return '';
  return minus === '' ? plus : `${plus}-${minus}`;
}

function translateEscape(re: string, i: number, inClass: boolean): { text: string; next: number } {
  const e = re[i + 1];
  if (e === undefined) throw new RegexpSyntaxError(`trailing backslash in regexp "${re}"`);
  if (PERL_CLASSES.has(e)) return { text: `\\${e}`, next: i + 2 };
  if (!inClass && (e === 'b' || e === 'B')) return { text: `\\${e}`, next: i + 2 };
  if (!inClass && e === 'A') return { text: '^', next: i + 2 };
  if (!inClass && e === 'z') return { text: '$', next: i + 2 };
  if (e === 'Q') {
    const end = re.indexOf('\\E', i + 2);
    const lit = end < 0 ? re.slice(i + 2) : re.slice(i + 2, end);
    const text = [...lit].map((c) => (inClass ? classLiteral(c) : escapeLiteral(c))).join('');
    return { text, next: end < 0 ? re.length : end + 2 };
  }
  const simple: Record<string, string> = { a: '\\x07', f: '\\f', t: '\\t', n: '\\n', r: '\\r', v: '\\v' };
  if (simple[e] !== undefined) return { text: simple[e], next: i + 2 };
  if (e === 'x') {
    const braced = /^\{([0-9A-Fa-f]{1,6})\}/.exec(re.slice(i + 2));
    if (braced) return { text: `\\u{${braced[1]}}`, next: i + 2 + braced[0].length };
    const two = /^[0-9A-Fa-f]{2}/.exec(re.slice(i + 2));
    if (two) return { text: `\\x${two[0]}`, next: i + 4 };
    throw new RegexpSyntaxError(`invalid escape sequence in regexp "${re}"`);
  }
  if (e >= '0' && e <= '7') {
    const oct = /^[0-7]{1,3}/.exec(re.slice(i + 1))![0];
    if (e !== '0' && oct.length === 1) throw new RegexpSyntaxError(`backreferences are not supported in regexp "${re}"`);
    return { text: `\\u{${parseInt(oct, 8).toString(16)}}`, next: i + 1 + oct.length };
  }
  if (e === 'p' || e === 'P') return translateUnicodeClass(re, i, e);
  if (/[A-Za-z0-9]/.test(e)) throw new RegexpSyntaxError(`invalid escape sequence \\${e} in regexp "${re}"`);
  const ch = String.fromCodePoint(re.codePointAt(i + 1)!);
  return { text: inClass ? classLiteral(ch) : escapeLiteral(ch), next: i + 1 + ch.length };
}

function translateUnicodeClass(re: string, i: number, e: string): { text: string; next: number } {
  const m = /^\{\^?([A-Za-z_]+)\}|^([A-Za-z])/.exec(re.slice(i + 2));
  if (!m) throw new RegexpSyntaxError(`invalid character class range in regexp "${re}"`);
  const negated = m[0].startsWith('{^');
  const name = m[1] ?? m[2]!;
  const cat = /^(L[ultmo]?|M[nce]?|N[dlo]?|P[cdseifo]?|S[mcko]?|Z[slp]?|C[cfson]?)$/.test(name) ? name : name === 'Any' ? 'Any' : `Script=${name}`;
  const neg = (e === 'P') !== negated;
  return { text: `\\${neg ? 'P' : 'p'}{${cat}}`, next: i + 2 + m[0].length };
}

function classLiteral(ch: string): string {
  if (ch === '\\' || ch === ']' || ch === '[' || ch === '-' || ch === '^') return `\\${ch}`;
  const cp = ch.codePointAt(0)!;
  if (cp < 0x20 || cp === 0x7f) return `\\u{${cp.toString(16)}}`;
  return ch;
}

function translateClass(re: string, i: number): { text: string; next: number } {
  let j = i + 1;
  let out = '[';
  if (re[j] === '^') {
    out += '^';
    j++;
  }
  let first = true;
  while (j < re.length) {
    const ch = String.fromCodePoint(re.codePointAt(j)!);
    if (ch === ']' && !first) return { text: out + ']', next: j + 1 };
    first = false;
    if (ch === '[' && re[j + 1] === ':') {
      const m = /^\[:(\^?)([a-z]+):\]/.exec(re.slice(j));
      const body = m ? POSIX_CLASSES[m[2]!] : undefined;
      if (!m || body === undefined) throw new RegexpSyntaxError(`invalid character class range in regexp "${re}"`);
      if (m[1] === '^') throw new RegexpSyntaxError(`negated POSIX classes are not supported in regexp "${re}"`);
      out += body;
      j += m[0].length;
    } else if (ch === '\\') {
      const r = translateEscape(re, j, true);
      out += r.text;
      j = r.next;
    } else if (ch === '-' && re[j + 1] !== ']' && out.length > 1 && !out.endsWith('[^')) {
      out += '-';
      j++;
    } else {
      out += classLiteral(ch);
      j += ch.length;
    }
  }
  throw new RegexpSyntaxError(`missing closing ] in regexp "${re}"`);
}

const cache = new Map<string, RegExp>();

/**
 * compileAnchored compiles an RE2 pattern fully anchored (`^(?:re)$`, dot matches newline),
 * as PromQL label matchers and label_replace do. Results are cached (bounded).
 */
export function compileAnchored(re: string): RegExp {
  let r = cache.get(re);
  if (r !== undefined) return r;
  try {
    r = new RegExp(`^(?:${translateRegexp(re)})$`, 'su');
  } catch (err) {
    if (err instanceof RegexpSyntaxError) throw err;
    throw new RegexpSyntaxError(`invalid regexp "${re}": ${(err as Error).message}`, { cause: err });
  }
  if (cache.size > 10_000) cache.clear();
  cache.set(re, r);
  return r;
}

/**
 * quoteMeta escapes every regexp metacharacter of s, so that the result matches s literally both
 * as an RE2 (PromQL, Prometheus config) pattern and as a JavaScript RegExp source.
 */
export function quoteMeta(s: string): string {
  return s.replace(/[\\.+*?()|[\]{}^$]/g, '\\$&');
}
