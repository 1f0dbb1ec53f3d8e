// Interval folder names (SPEC C1, DECISIONS.md "Schedule"), always in UTC:
//   hourly/YYYY-MM-DD:HH   daily/YYYY-MM-DD   weekly/YYYY-WW (ISO 8601 week)   monthly/YYYY-MM

/** Interval is a backup interval with its own folder and retention. */
export type Interval = 'hourly' | 'daily' | 'weekly' | 'monthly';

/** INTERVALS lists the intervals from the shortest to the longest. */
export const INTERVALS: readonly Interval[] = ['hourly', 'daily', 'weekly', 'monthly'];

/** IsoWeek is an ISO 8601 week: the week-numbering year (may differ from the calendar year) and week 1..53. */
export interface IsoWeek {
  readonly year: number;
  readonly week: number;
}

const DAY_MS = 86_400_000;

/** isoWeek returns the ISO 8601 week of the UTC day containing `ms`. Weeks start on Monday; week 1 holds the year's first Thursday. */
export function isoWeek(ms: number): IsoWeek {
  const d = new Date(ms);
  const dayStart = Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate());
  const weekday = (d.getUTCDay() + 6) % 7; // Monday = 0
  const thursday = dayStart + (3 - weekday) * DAY_MS;
  const year = new Date(thursday).getUTCFullYear();
  const week = 1 + Math.floor((thursday - Date.UTC(year, 0, 1)) / (7 * DAY_MS));
  return { year, week };
}

/** intervalBackupName returns the folder of `interval` for the UTC time `ms`, as `daily/2024-01-31`. */
export function intervalBackupName(interval: Interval, ms: number): string {
  const d = new Date(ms);
  const y = pad(d.getUTCFullYear(), 4);
  const mo = pad(d.getUTCMonth() + 1, 2);
  const day = pad(d.getUTCDate(), 2);
  switch (interval) {
    case 'hourly':
      return `hourly/${y}-${mo}-${day}:${pad(d.getUTCHours(), 2)}`;
    case 'daily':
      return `daily/${y}-${mo}-${day}`;
    case 'weekly': {
      const w = isoWeek(ms);
      return `weekly/${pad(w.year, 4)}-${pad(w.week, 2)}`;
    }
    case 'monthly':
      return `monthly/${y}-${mo}`;
  }
}

function pad(n: number, width: number): string {
  return String(n).padStart(width, '0');
}
