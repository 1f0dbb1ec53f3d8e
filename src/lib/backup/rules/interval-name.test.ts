import { describe, expect, it } from 'vitest';
import { intervalBackupName, isoWeek, type Interval } from './interval-name.ts';

const at = (iso: string) => Date.parse(iso);

describe('intervalBackupName', () => {
  it('names folders in UTC', () => {
    const f = (interval: Interval, iso: string, want: string) => expect(intervalBackupName(interval, at(iso))).toBe(want);
    f('hourly', '2024-03-05T07:59:59.999Z', 'hourly/2024-03-05:07');
    f('hourly', '2024-03-05T00:00:00Z', 'hourly/2024-03-05:00');
    f('daily', '2024-03-05T23:59:59Z', 'daily/2024-03-05');
    f('daily', '2024-03-05T23:30:00-01:00', 'daily/2024-03-06'); // 00:30 UTC next day
    f('monthly', '2024-12-31T23:00:00Z', 'monthly/2024-12');
    f('weekly', '2024-03-05T12:00:00Z', 'weekly/2024-10');
  });

  it('uses ISO 8601 weeks across year boundaries', () => {
    const f = (iso: string, want: string) => expect(intervalBackupName('weekly', at(iso))).toBe(want);
    f('2020-12-31T12:00:00Z', 'weekly/2020-53');
    f('2021-01-01T12:00:00Z', 'weekly/2020-53');
    f('2021-01-03T23:59:59Z', 'weekly/2020-53'); // a Sunday: still the last week of 2020
    f('2021-01-04T00:00:00Z', 'weekly/2021-01'); // Monday
    f('2024-12-30T00:00:00Z', 'weekly/2025-01'); // Monday of the week holding 2025-01-02
    f('2024-12-29T23:59:59Z', 'weekly/2024-52');
    f('2026-01-01T00:00:00Z', 'weekly/2026-01'); // a Thursday
    f('2027-01-01T00:00:00Z', 'weekly/2026-53'); // a Friday
    f('2015-12-31T00:00:00Z', 'weekly/2015-53');
    f('2016-01-01T00:00:00Z', 'weekly/2015-53');
  });
});

describe('isoWeek', () => {
  it('agrees with the weekday arithmetic on every day of several years', () => {
    // Property: consecutive days keep the week within Mon..Sun and weeks advance on Mondays.
    let prev = isoWeek(at('2019-12-30T00:00:00Z'));
    expect(prev).toEqual({ year: 2020, week: 1 });
    for (let d = at('2019-12-31T00:00:00Z'); d < at('2031-01-01T00:00:00Z'); d += 86_400_000) {
      const w = isoWeek(d);
      const monday = new Date(d).getUTCDay() === 1;
      if (!monday) expect(w).toEqual(prev);
      else expect(w.week === prev.week + 1 ? w.year === prev.year : w.week === 1 && w.year === prev.year + 1).toBe(true);
      prev = w;
    }
  });
});
