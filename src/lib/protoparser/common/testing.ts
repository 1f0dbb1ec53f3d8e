// Helpers for the protoparser tests (imported only by *.test.ts files).

import fc from 'fast-check';
import { formatFloat } from './float.ts';
import { ParseError } from './parse-error.ts';
import type { Row } from './row.ts';

/** showRow renders a row compactly for golden comparisons: `name{a="b"} value @ts`. */
export function showRow(r: Row): string {
  let name = '';
  const parts: string[] = [];
  for (const l of r.labels) {
    if (l.name === '__name__') name = l.value;
    else parts.push(`${l.name}=${JSON.stringify(l.value)}`);
  }
  return `${name}{${parts.join(',')}} ${formatFloat(r.value)} @${r.timestamp}`;
}

/** showRows renders rows with showRow. */
export function showRows(rows: readonly Row[]): string[] {
  return rows.map(showRow);
}

/** isSorted reports whether labels are sorted by name without duplicates or empty values. */
export function labelsAreCanonical(r: Row): boolean {
  for (let i = 0; i < r.labels.length; i++) {
    const l = r.labels[i]!;
    if (l.name === '' || l.value === '') return false;
    if (i > 0 && r.labels[i - 1]!.name >= l.name) return false;
  }
  return true;
}

/** expectParseErrorOrRows runs fn and rethrows anything that is neither a result nor a ParseError. */
export function parseOrParseError<T>(fn: () => T): T | ParseError {
  try {
    return fn();
  } catch (e) {
    if (e instanceof ParseError) return e;
    throw e;
  }
}


/**
 * mutatedText builds inputs by taking a valid sample from corpus and applying a few random edits
 * (insert, delete or replace one char, drawing from alphabet or any unicode char), so fuzz tests
 * explore the neighbourhood of valid input where parser bugs hide.
 */
export function mutatedText(corpus: readonly string[], alphabet: string): fc.Arbitrary<string> {
  const ch = fc.oneof(fc.constantFrom(...alphabet.split('')), fc.string({ unit: 'binary', minLength: 1, maxLength: 1 }));
  const edit = fc.tuple(fc.constantFrom('ins', 'del', 'rep'), fc.nat(), ch);
  return fc.tuple(fc.constantFrom(...corpus), fc.array(edit, { maxLength: 6 })).map(([base, edits]) => {
    let s = base;
    for (const [op, at, c] of edits) {
      const i = s.length === 0 ? 0 : at % (s.length + 1);
      if (op === 'ins') s = s.slice(0, i) + c + s.slice(i);
      else if (op === 'del') s = s.slice(0, i) + s.slice(i + 1);
      else s = s.slice(0, i) + c + s.slice(i + 1);
    }
    return s;
  });
}

/** anyText is arbitrary text of every kind: unicode, binary-ish and line-structured. */
export function anyText(alphabet: string): fc.Arbitrary<string> {
  return fc.oneof(
    fc.string({ unit: 'binary', maxLength: 200 }),
    fc.string({ unit: fc.constantFrom(...alphabet.split('')), maxLength: 200 }),
  );
}
