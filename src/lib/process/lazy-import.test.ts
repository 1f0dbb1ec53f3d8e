import { describe, expect, it } from 'vitest';
import { lazyImport } from './lazy-import.ts';

describe('lazyImport', () => {
  it('loads nothing until first called, then once for every caller', async () => {
    let loads = 0;
    const load = lazyImport(async () => {
      loads++;
      return { value: 42 };
    });
    expect(loads).toBe(0);
    const [a, b] = await Promise.all([load(), load()]);
    expect(loads).toBe(1);
    expect(a).toBe(b);
    expect((await load()).value).toBe(42);
    expect(loads).toBe(1);
  });

  it('imports a real module', async () => {
    const load = lazyImport(() => import('node:path'));
    expect((await load()).join('a', 'b')).toBe('a/b');
  });

  it('keeps a failed import failed', async () => {
    let loads = 0;
    const load = lazyImport(async () => {
      loads++;
      throw new Error('cannot load "x"');
    });
    await expect(load()).rejects.toThrow('cannot load "x"');
    await expect(load()).rejects.toThrow('cannot load "x"');
    expect(loads).toBe(1);
  });
});
