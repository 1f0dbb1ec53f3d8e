import { describe, it, expect } from 'vitest';
import fc from 'fast-check';
import { parse } from './parse.ts';
import { anyText, labelsAreCanonical, mutatedText } from '../common/testing.ts';

const corpus = [
  '{"metric":{"__name__":"up","job":"node"},"values":[1,0.5,null,"NaN"],"timestamps":[1,2,3,4]}\n{"metric":{"a":"b"},"values":[1],"timestamps":[1]}',
];
const alphabet = '[]{}":,\n0123456789.-emetricvaluestimestampsnullNaN';

function check(text: string): void {
  const r = parse(text);
  for (const row of r.rows) {
    expect(labelsAreCanonical(row)).toBe(true);
    expect(Number.isSafeInteger(row.timestamp)).toBe(true);
  }
}

describe('jsonline parse fuzz', () => {
  it('never throws on arbitrary text', () => {
    fc.assert(fc.property(anyText(alphabet), check), { numRuns: 1500 });
  });
  it('never throws on mutated valid input', () => {
    fc.assert(fc.property(mutatedText(corpus, alphabet), check), { numRuns: 3000 });
  });
  it('handles any JSON value in any field', () => {
    const line = fc.record({ metric: fc.jsonValue(), values: fc.jsonValue(), timestamps: fc.jsonValue() }, { requiredKeys: [] });
    fc.assert(fc.property(fc.array(line, { maxLength: 3 }), (lines) => check(lines.map((l) => JSON.stringify(l)).join('\n'))), { numRuns: 400 });
  });
});
