import { describe, expect, it } from 'vitest';
import { oldGenerationFloorMiB } from './old-generation-floor.ts';

const GIB = 2 ** 30;

describe('oldGenerationFloorMiB', () => {
  it('gives each thread 128 MiB when a sixteenth of the memory covers all threads', () => {
    expect(oldGenerationFloorMiB(24 * GIB, 2)).toBe(128);
    expect(oldGenerationFloorMiB(4 * GIB, 2)).toBe(128);
  });

  it('splits a sixteenth of the memory between the threads when that is less', () => {
    expect(oldGenerationFloorMiB(2 * GIB, 2)).toBe(64);
    expect(oldGenerationFloorMiB(8 * GIB, 16)).toBe(32);
  });

  it('gives no floor when the share is smaller than V8 would use anyway', () => {
    expect(oldGenerationFloorMiB(512 * 2 ** 20, 2)).toBeUndefined();
    expect(oldGenerationFloorMiB(8 * GIB, 64)).toBeUndefined();
  });
});
