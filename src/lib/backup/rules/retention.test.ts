import { describe, expect, it } from 'vitest';
import { selectForDeletion, type KeepLast, type RetentionBackup } from './retention.ts';

const b = (name: string, locked = false): RetentionBackup => ({ name, locked });
const backups: RetentionBackup[] = [
  b('latest'),
  b('hourly/2024-03-05:06'),
  b('hourly/2024-03-05:07'),
  b('hourly/2024-03-05:08'),
  b('daily/2024-03-03', true),
  b('daily/2024-03-04'),
  b('daily/2024-03-05'),
  b('weekly/2024-09'),
  b('weekly/2024-10'),
  b('monthly/2024-02'),
  b('monthly/2024-03'),
  b('custom/thing'),
];

describe('selectForDeletion', () => {
  it('keeps the newest N by name per interval', () => {
    const f = (keepLast: KeepLast, want: string[]) => expect(selectForDeletion(backups, keepLast)).toEqual(want);
    // everything off
    f({}, []);
    f({ hourly: -1, daily: -1, weekly: -1, monthly: -1 }, []);
    f({ hourly: 2 }, ['hourly/2024-03-05:06']);
    f({ hourly: 5 }, []);
    // 0 deletes all of that interval
    f({ weekly: 0 }, ['weekly/2024-09', 'weekly/2024-10']);
    f({ hourly: 1, monthly: 1 }, ['hourly/2024-03-05:06', 'hourly/2024-03-05:07', 'monthly/2024-02']);
  });

  it('never deletes locked backups, latest, or unknown names', () => {
    const f = (keepLast: KeepLast, want: string[]) => expect(selectForDeletion(backups, keepLast)).toEqual(want);
    // daily/2024-03-03 is locked and falls outside the newest 1 — kept anyway
    f({ daily: 1 }, ['daily/2024-03-04']);
    f({ daily: 0 }, ['daily/2024-03-04', 'daily/2024-03-05']);
    f({ hourly: 0, daily: 0, weekly: 0, monthly: 0 }, [
      'daily/2024-03-04', 'daily/2024-03-05',
      'hourly/2024-03-05:06', 'hourly/2024-03-05:07', 'hourly/2024-03-05:08',
      'monthly/2024-02', 'monthly/2024-03',
      'weekly/2024-09', 'weekly/2024-10',
    ]);
  });

  it('counts locked backups among the newest N', () => {
    const list = [b('daily/2024-03-01'), b('daily/2024-03-02'), b('daily/2024-03-03', true)];
    expect(selectForDeletion(list, { daily: 1 })).toEqual(['daily/2024-03-01', 'daily/2024-03-02']);
  });

  it('rejects invalid keepLast values', () => {
    const f = (n: number) => expect(() => selectForDeletion(backups, { daily: n })).toThrow(RangeError);
    f(-2);
    f(1.5);
    f(Number.NaN);
  });
});
