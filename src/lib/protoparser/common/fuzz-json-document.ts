// Shared fuzz suite of the JSON document parsers (agentfmt, opentsdbhttp): test-only, imported by
// their parse.fuzz.test.ts files (vitest's describe/it/expect are called from here).

import { describe, it, expect } from 'vitest';
import fc from 'fast-check';
import { ParseError } from './parse-error.ts';
import type { RowsAndErrors } from './parse-result.ts';
import { anyText, labelsAreCanonical, mutatedText } from './testing.ts';

/** JsonDocumentFuzz describes one JSON document format to fuzz. */
export interface JsonDocumentFuzz {
  /** parse is the format's parser, called with a clock at 7 ms. */
  readonly parse: (body: string, opts: { now: () => number }) => RowsAndErrors;
  /** corpus holds valid bodies to mutate; alphabet the chars that mutations and random text use. */
  readonly corpus: readonly string[];
  readonly alphabet: string;
  /** documents generates documents of the format's shape with any JSON value in any field. */
  readonly documents: fc.Arbitrary<unknown>;
}

/**
 * describeJsonDocumentFuzz declares the fuzz tests every JSON document parser passes: whatever the
 * body, parse throws nothing but ParseError, and every row it returns has canonical labels and a
 * safe integer timestamp.
 */
export function describeJsonDocumentFuzz(name: string, f: JsonDocumentFuzz): void {
  const check = (body: string): void => {
    try {
      const r = f.parse(body, { now: () => 7 });
      for (const row of r.rows) {
        expect(labelsAreCanonical(row)).toBe(true);
        expect(Number.isSafeInteger(row.timestamp)).toBe(true);
      }
    } catch (e) {
      if (!(e instanceof ParseError)) throw e;
    }
  };
  describe(`${name} parse fuzz`, () => {
    it('never throws anything but ParseError on arbitrary text', () => {
      fc.assert(fc.property(anyText(f.alphabet), check), { numRuns: 1500 });
    });
    it('never throws anything but ParseError on mutated valid input', () => {
      fc.assert(fc.property(mutatedText(f.corpus, f.alphabet), check), { numRuns: 3000 });
    });
    it('handles any JSON value in any field', () => {
      fc.assert(fc.property(f.documents, (doc) => check(JSON.stringify(doc))), { numRuns: 400 });
    });
  });
}
