import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { CorruptDataError } from './common/errors.ts';
import { decodeLabelsKey, encodeText, labelsKey } from './index/keys.ts';
import { LabelPairs } from './label-pairs.ts';

const label = fc.record({ name: fc.string({ unit: 'binary', minLength: 1, maxLength: 20 }), value: fc.string({ unit: 'binary', minLength: 1, maxLength: 40 }) });

describe('LabelPairs', () => {
  it('decodes any encoded label set as decodeLabelsKey does, frozen', () => {
    fc.assert(
      fc.property(fc.array(label, { maxLength: 8 }), fc.integer({ min: 64, max: 4096 }), (labels, budget) => {
        const pairs = new LabelPairs(budget);
        const bin = labelsKey(labels);
        for (let round = 0; round < 2; round++) {
          const got = pairs.decode(bin);
          expect(got).toEqual(decodeLabelsKey(bin, 0));
          expect(Object.isFrozen(got)).toBe(true);
          for (const l of got) expect(Object.isFrozen(l)).toBe(true);
        }
        // Over budget only with the one pair just added to an emptied table.
        expect(pairs.bytes <= budget || pairs.size === 1).toBe(true);
      }),
      { numRuns: 300 },
    );
  });

  it('shares one object per pair between label sets, and the arrays are exactly as long as the sets', () => {
    const pairs = new LabelPairs(1 << 20);
    const a = pairs.decode(labelsKey([{ name: '__name__', value: 'up' }, { name: 'instance', value: 'host-00001:9100' }, { name: 'job', value: 'node' }]));
    const b = pairs.decode(labelsKey([{ name: '__name__', value: 'up' }, { name: 'instance', value: 'host-00002:9100' }, { name: 'job', value: 'node' }]));
    expect(a[0]).toBe(b[0]);
    expect(a[2]).toBe(b[2]);
    expect(a[1]).not.toBe(b[1]);
    expect(b[1]).toEqual({ name: 'instance', value: 'host-00002:9100' });
    expect(pairs.size).toBe(4);
    expect(a.length).toBe(3);
    expect(pairs.decode('')).toEqual([]);
  });

  it('starts an empty table when over budget, keeping decoded sets intact', () => {
    const pairs = new LabelPairs(400);
    const sets = Array.from({ length: 20 }, (_, i) => labelsKey([{ name: 'job', value: `job-${i}` }, { name: 'zone', value: 'a' }]));
    const first = sets.map((s) => pairs.decode(s));
    expect(pairs.resets).toBeGreaterThan(0);
    expect(pairs.bytes).toBeLessThanOrEqual(400);
    first.forEach((got, i) => expect(got).toEqual([{ name: 'job', value: `job-${i}` }, { name: 'zone', value: 'a' }]));
  });

  it('rejects a name without a value or terminator', () => {
    const pairs = new LabelPairs(1 << 20);
    expect(() => pairs.decode(encodeText('job'))).toThrow(CorruptDataError);
    expect(() => pairs.decode('job')).toThrow(CorruptDataError);
    expect(() => new LabelPairs(0)).toThrow(/budget must be positive/);
  });
});
