import { describe, expect, it } from 'vitest';
import { QueryError } from './errors.ts';
import { mergeSameLabels } from './transform-call.ts';
import type { Series } from './types.ts';

const series = (labels: Record<string, string>, values: (number | null)[], dropName = false): Series => ({
  labels: Object.entries(labels).map(([name, value]) => ({ name, value })),
  values: Float64Array.from(values, (v) => v ?? 0),
  present: Uint8Array.from(values, (v) => (v === null ? 0 : 1)),
  dropName,
});

describe('mergeSameLabels', () => {
  it('merges series with one label set into the first one\'s place, in order', () => {
    const out = mergeSameLabels([
      series({ a: '1' }, [1, null, null], true),
      series({ a: '2' }, [5, 5, 5]),
      series({ a: '1' }, [null, 2, null], false),
      series({ a: '1' }, [null, null, 3], true),
    ]);
    expect(out.map((s) => s.labels[0]!.value)).toEqual(['1', '2']);
    expect([...out[0]!.values]).toEqual([1, 2, 3]);
    expect([...out[0]!.present]).toEqual([1, 1, 1]);
    expect(out[0]!.dropName).toBe(false);
    expect([...out[1]!.values]).toEqual([5, 5, 5]);
  });

  it('leaves its input series unchanged', () => {
    const first = series({ a: '1' }, [1, null]);
    mergeSameLabels([first, series({ a: '1' }, [null, 2])]);
    expect([...first.present]).toEqual([1, 0]);
  });

  it('fails when two series with one label set have a point at the same step', () => {
    expect(() => mergeSameLabels([series({ a: '1' }, [1, null]), series({ b: '2' }, [1, 1]), series({ a: '1' }, [null, 2]), series({ a: '1' }, [3, null])]))
      .toThrow(new QueryError('vector cannot contain metrics with the same labelset'));
  });
});
