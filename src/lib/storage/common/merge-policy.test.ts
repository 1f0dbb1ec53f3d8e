import { describe, expect, it } from 'vitest';
import { DEFAULT_MERGE_POLICY, pickPartsForForceMerge, pickPartsToMerge } from './merge-policy.ts';

const parts = (...sizes: number[]) => sizes.map((s, i) => ({ name: `p${i}`, sizeBytes: s }));

describe('pickPartsToMerge', () => {
  it('merges parts of similar size and leaves lone big parts alone', () => {
    const f = (sizes: number[], want: string[]) => expect(pickPartsToMerge(parts(...sizes)).sort()).toEqual(want.sort());
    // too few parts
    f([], []);
    f([10, 10, 10], []);
    // four similar small parts merge
    f([10, 11, 12, 13], ['p0', 'p1', 'p2', 'p3']);
    // the big part does not join small ones (ratio would be poor)
    f([1000, 10, 10, 10, 10], ['p1', 'p2', 'p3', 'p4']);
    // one big and three small: nothing worth doing
    f([1000, 10, 10, 10], []);
  });

  it('caps the number of inputs and the output size', () => {
    const many = parts(...Array.from({ length: 30 }, () => 5));
    expect(pickPartsToMerge(many)).toHaveLength(DEFAULT_MERGE_POLICY.maxParts);
    expect(pickPartsToMerge(parts(10, 10, 10, 10), { ...DEFAULT_MERGE_POLICY, maxOutputBytes: 25 })).toEqual([]);
  });

  it('merges anyway when a partition has too many parts', () => {
    const sizes = [1, 100, 10_000, 1_000_000];
    const many = parts(...Array.from({ length: 60 }, (_, i) => sizes[i % 4]! * (1 + i)));
    expect(pickPartsToMerge(many).length).toBeGreaterThanOrEqual(2);
  });
});

describe('pickPartsForForceMerge', () => {
  it('groups everything into as few merges as the size cap allows', () => {
    const f = (sizes: number[], max: number, want: string[][]) => expect(pickPartsForForceMerge(parts(...sizes), max)).toEqual(want);
    f([5], 100, []);
    f([5, 6, 7], 100, [['p0', 'p1', 'p2']]);
    f([50, 60, 70, 10], 100, [['p3', 'p0'], ['p1'], ['p2']].filter((g) => g.length > 1));
  });
});
