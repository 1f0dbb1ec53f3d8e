import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Labels } from '../storageapi/index.ts';
import { ALL_LABELS, type LabelFilter, LabelSetIndex } from './label-set-index.ts';
import { labelsKey, METRIC_NAME } from './labels.ts';

// signatureKey: the string key vector matching used before, the kept labels' labelsKey (with `on`
// the listed names; without, every name but the listed ones and the metric name).
function signatureKey(ls: Labels, on: boolean, names: ReadonlySet<string>): string {
  return labelsKey(ls.filter((l) => (on ? names.has(l.name) : !names.has(l.name) && l.name !== METRIC_NAME)));
}

// The reference: a Map keyed by the string key the engine used before (labelsKey/signatureKey).
function referenceNumbers(sets: readonly Labels[], filter: LabelFilter): number[] {
  const key = (ls: Labels): string => (filter.kind === 'all' ? labelsKey(ls) : signatureKey(ls, filter.on, filter.names));
  const seen = new Map<string, number>();
  return sets.map((ls) => {
    const k = key(ls);
    let n = seen.get(k);
    if (n === undefined) seen.set(k, (n = seen.size));
    return n;
  });
}

// Small alphabets, so that sets repeat and differ by one label; no '\xff' (labelsKey's separator).
const labelSet: fc.Arbitrary<Labels> = fc
  .uniqueArray(fc.record({ name: fc.constantFrom('__name__', 'a', 'b', 'job', 'instance'), value: fc.constantFrom('', 'x', 'y', 'xy', 'é', '\u0100') }), {
    selector: (l) => l.name,
    maxLength: 5,
  })
  .map((ls) => [...ls].sort((x, y) => (x.name < y.name ? -1 : x.name > y.name ? 1 : 0)));
const filter: fc.Arbitrary<LabelFilter> = fc.oneof(
  fc.constant(ALL_LABELS),
  fc.record({
    kind: fc.constant('signature' as const),
    on: fc.boolean(),
    names: fc.uniqueArray(fc.constantFrom('__name__', 'a', 'job', 'zz')).map((ns) => new Set(ns)),
  }),
);

describe('LabelSetIndex', () => {
  it('numbers label sets as a Map keyed by labelsKey or signatureKey does (property)', () => {
    fc.assert(fc.property(fc.array(labelSet, { maxLength: 30 }), filter, (sets, f) => {
      const index = new LabelSetIndex(f);
      const got = sets.map((ls) => index.add(ls));
      expect(got).toEqual(referenceNumbers(sets, f));
      expect(index.size).toBe(new Set(got).size);
      // find agrees with add once every set is in, and with the hash passed in.
      for (let i = 0; i < sets.length; i++) expect(index.find(sets[i]!, index.hash(sets[i]!))).toBe(got[i]);
    }), { numRuns: 2000 });
  });

  it('keeps sets apart when their hashes collide', () => {
    const index = new LabelSetIndex(ALL_LABELS);
    const a: Labels = [{ name: 'a', value: 'x' }];
    const b: Labels = [{ name: 'a', value: 'y' }];
    expect(index.add(a, 7)).toBe(0);
    expect(index.add(b, 7)).toBe(1);
    expect(index.find(a, 7)).toBe(0);
    expect(index.find(b, 7)).toBe(1);
    expect(index.find([{ name: 'a', value: 'z' }], 7)).toBe(-1);
  });

  it('tells a label from the same text split differently between name and value', () => {
    const index = new LabelSetIndex(ALL_LABELS);
    expect(index.add([{ name: 'ab', value: 'c' }])).toBe(0);
    expect(index.add([{ name: 'a', value: 'bc' }])).toBe(1);
    expect(index.find([{ name: 'a', value: 'bc' }, { name: 'd', value: '' }])).toBe(-1);
  });

  it('matches signatures with or without the metric name', () => {
    const on = new LabelSetIndex({ kind: 'signature', on: true, names: new Set(['job']) });
    expect(on.add([{ name: '__name__', value: 'm' }, { name: 'job', value: 'j' }, { name: 'x', value: '1' }])).toBe(0);
    expect(on.find([{ name: 'job', value: 'j' }])).toBe(0);
    const ignoring = new LabelSetIndex({ kind: 'signature', on: false, names: new Set(['x']) });
    expect(ignoring.add([{ name: '__name__', value: 'm' }, { name: 'job', value: 'j' }, { name: 'x', value: '1' }])).toBe(0);
    expect(ignoring.find([{ name: '__name__', value: 'n' }, { name: 'job', value: 'j' }])).toBe(0);
    expect(ignoring.find([{ name: 'job', value: 'k' }])).toBe(-1);
  });
});
