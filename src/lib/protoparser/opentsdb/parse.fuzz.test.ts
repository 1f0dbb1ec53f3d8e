import { describe, it, expect } from 'vitest';
import fc from 'fast-check';
import { parse } from './parse.ts';
import { anyText, labelsAreCanonical, mutatedText } from '../common/testing.ts';

const corpus = ['put sys.cpu.user 1700000000 42.5 host=web01 cpu=0\nput m 1700000000123 1', 'put m 1.5 -Inf a=b=c\r\n\nput x 0 1'];
const alphabet = ' \t=\n\r.-+e0123456789putmNIf';

function check(text: string): void {
  const r = parse(text, { now: () => 7 });
  for (const row of r.rows) {
    expect(labelsAreCanonical(row)).toBe(true);
    expect(Number.isSafeInteger(row.timestamp)).toBe(true);
  }
}

describe('opentsdb telnet parse fuzz', () => {
  it('never throws on arbitrary text', () => {
    fc.assert(fc.property(anyText(alphabet), check), { numRuns: 1500 });
  });
  it('never throws on mutated valid input', () => {
    fc.assert(fc.property(mutatedText(corpus, alphabet), check), { numRuns: 3000 });
  });
});
