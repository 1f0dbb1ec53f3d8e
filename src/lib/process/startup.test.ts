import { afterEach, describe, expect, it, vi } from 'vitest';
import { flagValueOrExit } from './startup.ts';

describe('flagValueOrExit', () => {
  afterEach(() => vi.restoreAllMocks());

  it('returns the value, or prints "<binary>: <message>" and exits 2', () => {
    expect(flagValueOrExit('x', () => 42)).toBe(42);
    const exit = vi.spyOn(process, 'exit').mockImplementation(((code: number) => {
      throw new Error(`exit ${code}`);
    }) as never);
    const stderr = vi.spyOn(process.stderr, 'write').mockImplementation(() => true);
    expect(() => flagValueOrExit('tsdb-select', () => {
      throw new Error('invalid -storageNode "x": no port');
    })).toThrow('exit 2');
    expect(exit).toHaveBeenCalledWith(2);
    expect(stderr).toHaveBeenCalledWith('tsdb-select: invalid -storageNode "x": no port\n');
  });
});
