import { describe, expect, it } from 'vitest';
import { KeyDictionaries } from './key-dictionaries.ts';

describe('KeyDictionaries', () => {
  it('hands out one dictionary per name, up to max, each with its share', () => {
    const d = new KeyDictionaries(1000, 2);
    const a = d.for('a');
    const f = (name: string, want: 'a' | 'new' | 'none') => {
      const got = d.for(name);
      if (want === 'none') expect(got).toBeUndefined();
      else if (want === 'a') expect(got).toBe(a);
      else expect(got).not.toBe(a);
    };
    f('a', 'a');
    f('b', 'new');
    f('c', 'none');
    f('a', 'a');
    expect(a?.maxBytes).toBe(500);
  });
  it('needs room for one', () => {
    expect(() => new KeyDictionaries(10, 0)).toThrow(/at least one/);
  });
});
