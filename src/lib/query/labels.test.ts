import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { dropMetricName, labelsKey, METADATA_LABELS } from './labels.ts';

const labelSet = fc.uniqueArray(
  fc.record({ name: fc.constantFrom('__name__', '__type__', '__unit__', 'a', 'job', 'le', 'zone'), value: fc.string({ maxLength: 3 }) }),
  { selector: (l) => l.name, maxLength: 7 },
).map((ls) => ls.sort((x, y) => (x.name < y.name ? -1 : 1)));

describe('label set helpers', () => {
  it('dropMetricName removes exactly the metadata labels, keeping order, and returns an untouched set as is', () => {
    fc.assert(
      fc.property(labelSet, (ls) => {
        const got = dropMetricName(ls);
        expect(got).toEqual(ls.filter((l) => !METADATA_LABELS.has(l.name)));
        if (!ls.some((l) => METADATA_LABELS.has(l.name))) expect(got).toBe(ls);
      }),
      { numRuns: 1000 },
    );
  });

  it('labelsKey tells label sets apart exactly', () => {
    fc.assert(
      fc.property(labelSet, labelSet, (a, b) => {
        expect(labelsKey(a) === labelsKey(b)).toBe(JSON.stringify(a) === JSON.stringify(b));
      }),
      { numRuns: 1000 },
    );
  });
});
