import { describe, expect, it } from 'vitest';
import { StringInterner } from './interner.ts';

describe('StringInterner', () => {
  it('returns the first instance for equal strings, skips long ones, expires unused ones', () => {
    let t = 0;
    const i = new StringInterner({ maxLen: 5, expireMs: 100, disabled: false, now: () => t });
    const a = i.intern('ab'.slice(0, 1) + 'c');
    expect(i.intern('ac')).toBe(a);
    expect(i.intern('toolong')).toBe('toolong');
    expect(i.size).toBe(1);
    t = 150;
    i.intern('x');
    expect(i.size).toBe(1);
  });

  it('caches nothing when disabled', () => {
    const i = new StringInterner({ maxLen: 5, expireMs: 100, disabled: true, now: () => 0 });
    i.intern('a');
    expect(i.size).toBe(0);
  });
});
