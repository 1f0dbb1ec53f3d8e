import { describe, it, expect } from 'vitest';
import fc from 'fast-check';
import { parse } from './parse.ts';
import { anyText, labelsAreCanonical, mutatedText } from '../common/testing.ts';

const corpus = ['foo.bar;env=prod;dc=eu 12.5 1700000000\nbaz 1', 'a.b\t-1e3\t-1\r\nc;x=1;y 2 1700000000.25'];
const alphabet = ' \t;=\n\r.-+e0123456789aNIf';

function check(text: string): void {
  const r = parse(text, { now: () => 7 });
  for (const row of r.rows) {
    expect(labelsAreCanonical(row)).toBe(true);
    expect(Number.isSafeInteger(row.timestamp)).toBe(true);
  }
}

describe('graphite parse fuzz', () => {
  it('never throws on arbitrary text', () => {
    fc.assert(fc.property(anyText(alphabet), check), { numRuns: 1500 });
  });
  it('never throws on mutated valid input', () => {
    fc.assert(fc.property(mutatedText(corpus, alphabet), check), { numRuns: 3000 });
  });
});
