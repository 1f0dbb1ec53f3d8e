import { describe, expect, it } from 'vitest';
import { acceptedRange, cutoffDay, dayRange, partitionsToDrop } from './retention.ts';

const DAY = 86_400_000;
const NOW = Date.UTC(2024, 2, 15, 12);

describe('retention rules', () => {
  it('drops only partitions entirely older than retention', () => {
    const f = (retentionDays: number, want: string[]) =>
      expect(partitionsToDrop(['2023_12', '2024_01', '2024_02', '2024_03'], NOW, retentionDays * DAY)).toEqual(want);
    f(31, ['2023_12', '2024_01']);
    f(45, ['2023_12']);
    f(365, []);
    f(1, ['2023_12', '2024_01', '2024_02']);
  });

  it('bounds accepted timestamps and searched days', () => {
    expect(acceptedRange(NOW, DAY)).toEqual({ minTs: NOW - DAY, maxTs: NOW + 2 * DAY });
    expect(cutoffDay(NOW, 10 * DAY)).toBe(Math.floor((NOW - 10 * DAY) / DAY));
    const f = (minTs: number, maxTs: number, want: [number, number]) => {
      const r = dayRange(minTs, maxTs, NOW, 10 * DAY);
      expect([r.minDay, r.maxDay]).toEqual(want);
    };
    const today = Math.floor(NOW / DAY);
    f(NOW - DAY, NOW, [today - 1, today]);
    f(0, 8.64e15, [Math.floor((NOW - 10 * DAY) / DAY), today + 2]);
  });
});
