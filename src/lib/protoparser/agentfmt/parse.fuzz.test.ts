import { describe, it, expect } from 'vitest';
import fc from 'fast-check';
import { parse } from './parse.ts';
import { ParseError } from '../common/parse-error.ts';
import { anyText, labelsAreCanonical, mutatedText } from '../common/testing.ts';

const corpus = [
  '{"series":[{"host":"h","interval":20,"metric":"system.load.1","points":[[1700000000,0.5]],"tags":["environment:test","solo"],"type":"rate"}]}',
  '{"series":[{"metric":"a-b","points":[[1.5,1],[0,2]],"device":"sda"}]}',
];
const alphabet = '[]{}":,0123456789.-eseriesmetricpointstagshost';

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

describe('agent format parse fuzz', () => {
  it('never throws anything but ParseError on arbitrary text', () => {
    fc.assert(fc.property(anyText(alphabet), check), { numRuns: 1500 });
  });
  it('never throws anything but ParseError on mutated valid input', () => {
    fc.assert(fc.property(mutatedText(corpus, alphabet), check), { numRuns: 3000 });
  });
  it('handles any JSON value in any field', () => {
    const series = fc.record(
      { metric: fc.jsonValue(), points: fc.oneof(fc.jsonValue(), fc.array(fc.tuple(fc.jsonValue(), fc.jsonValue()))), tags: fc.jsonValue(), host: fc.jsonValue(), device: fc.jsonValue() },
      { requiredKeys: [] },
    );
    fc.assert(fc.property(fc.oneof(fc.record({ series: fc.array(series) }), fc.jsonValue()), (doc) => check(JSON.stringify(doc))), { numRuns: 400 });
  });
});
