import { describe, it, expect } from 'vitest';
import fc from 'fast-check';
import { parse } from './parse.ts';
import { anyText, labelsAreCanonical, mutatedText } from '../common/testing.ts';

const corpus = [
  'cpu,host=a,region=us\\ west usage=1.5,idle=2i,ok=t,msg="hi, there" 1700000000000000000\nmem free=3u',
  'm\\ x\\,y,t\\=k=v\\,w f\\=1=1 -5\r\n# c\n,x=1 f=2',
  'weather,location=us-midwest temperature=82 1465839830100400200\nm s="a \\" b",v=-1e-3 0',
];
const alphabet = ',= \\"\n\r#.-0123456789iutfTFe';

function check(text: string, precision: 'ns' | 's' | 'h'): void {
  const r = parse(text, { now: () => 7, precision, db: 'd' });
  for (const row of r.rows) {
    expect(labelsAreCanonical(row)).toBe(true);
    expect(Number.isSafeInteger(row.timestamp)).toBe(true);
  }
  expect(r.errors.count === 0 || r.errors.first?.line !== undefined).toBe(true);
}

describe('influx parse fuzz', () => {
  const precision = fc.constantFrom('ns' as const, 's' as const, 'h' as const);
  it('never throws on arbitrary text', () => {
    fc.assert(fc.property(anyText(alphabet), precision, check), { numRuns: 3000 });
  });
  it('never throws on mutated valid input', () => {
    fc.assert(fc.property(mutatedText(corpus, alphabet), precision, check), { numRuns: 5000 });
  });
});
