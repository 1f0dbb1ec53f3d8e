import { describe, it, expect } from 'vitest';
import fc from 'fast-check';
import { parse } from './parse.ts';
import { ParseError } from '../common/parse-error.ts';
import { anyText, labelsAreCanonical, mutatedText } from '../common/testing.ts';

const corpus = [
  '[{"metric":"x.y","value":45.34},{"metric":"t","timestamp":1700000000,"value":"1","tags":{"a":"b"}}]',
  '{"metric":"m","timestamp":1700000000123,"value":1e3,"tags":{"n":7}}',
];
const alphabet = '[]{}":,0123456789.-emetricvaluetags';

function check(body: string): void {
  try {
    const r = parse(body, { now: () => 7 });
    for (const row of r.rows) {
      expect(labelsAreCanonical(row)).toBe(true);
      expect(Number.isSafeInteger(row.timestamp)).toBe(true);
    }
  } catch (e) {
    if (!(e instanceof ParseError)) throw e;
  }
}

describe('opentsdb http parse fuzz', () => {
  it('never throws anything but ParseError on arbitrary text', () => {
    fc.assert(fc.property(anyText(alphabet), check), { numRuns: 1500 });
  });
  it('never throws anything but ParseError on mutated valid input', () => {
    fc.assert(fc.property(mutatedText(corpus, alphabet), check), { numRuns: 3000 });
  });
  it('handles any JSON value in any field', () => {
    const point = fc.record({ metric: fc.jsonValue(), timestamp: fc.jsonValue(), value: fc.jsonValue(), tags: fc.jsonValue() }, { requiredKeys: [] });
    fc.assert(fc.property(fc.oneof(point, fc.array(point), fc.jsonValue()), (doc) => check(JSON.stringify(doc))), { numRuns: 400 });
  });
});
