import { describe, expect, it } from 'vitest';
import { dueRuns, firstRunTime, nextRunTime, type EnabledIntervals } from './schedule.ts';

const at = (iso: string) => Date.parse(iso);
const iso = (ms: number) => new Date(ms).toISOString();
const all: EnabledIntervals = { hourly: true, daily: true, weekly: true, monthly: true };
const noHourly: EnabledIntervals = { ...all, hourly: false };

describe('nextRunTime', () => {
  it('is the next full hour with hourly backups, else the next 00:00 UTC', () => {
    const f = (now: string, enabled: EnabledIntervals, want: string) => expect(iso(nextRunTime(at(now), enabled))).toBe(want);
    f('2024-03-05T07:12:00Z', all, '2024-03-05T08:00:00.000Z');
    f('2024-03-05T07:00:00Z', all, '2024-03-05T08:00:00.000Z'); // strictly after
    f('2024-03-05T23:59:59Z', all, '2024-03-06T00:00:00.000Z');
    f('2024-03-05T07:12:00Z', noHourly, '2024-03-06T00:00:00.000Z');
    f('2024-03-06T00:00:00Z', noHourly, '2024-03-07T00:00:00.000Z');
    f('2024-12-31T23:00:00Z', noHourly, '2025-01-01T00:00:00.000Z');
  });
});

describe('firstRunTime', () => {
  it('is now with runOnStart, else the next full hour', () => {
    const f = (start: string, runOnStart: boolean, want: string) => expect(iso(firstRunTime(at(start), runOnStart))).toBe(want);
    f('2024-03-05T07:12:34Z', true, '2024-03-05T07:12:34.000Z');
    f('2024-03-05T07:12:34Z', false, '2024-03-05T08:00:00.000Z');
    f('2024-03-05T07:00:00Z', false, '2024-03-05T08:00:00.000Z');
  });
});

describe('dueRuns', () => {
  it('returns the enabled interval folders of this period that do not exist yet', () => {
    const f = (now: string, enabled: EnabledIntervals, existing: string[], want: string[]) =>
      expect(dueRuns({ now: at(now), enabled, existing }).map((r) => r.name)).toEqual(want);
    // first run ever: everything enabled is due
    f('2024-03-05T07:00:00Z', all, [], ['hourly/2024-03-05:07', 'daily/2024-03-05', 'weekly/2024-10', 'monthly/2024-03']);
    // later the same day: only the new hour
    f('2024-03-05T08:00:00Z', all, ['hourly/2024-03-05:07', 'daily/2024-03-05', 'weekly/2024-10', 'monthly/2024-03'], ['hourly/2024-03-05:08']);
    // a new day in the same week and month
    f('2024-03-06T00:00:00Z', noHourly, ['daily/2024-03-05', 'weekly/2024-10', 'monthly/2024-03'], ['daily/2024-03-06']);
    // disabled intervals are never due
    f('2024-03-05T07:00:00Z', { hourly: false, daily: false, weekly: true, monthly: false }, [], ['weekly/2024-10']);
    // a failed copy left no complete backup: due again
    f('2024-04-01T00:00:00Z', noHourly, ['daily/2024-04-01', 'weekly/2024-14'], ['monthly/2024-04']);
  });

  it('names the interval of each due run', () => {
    expect(dueRuns({ now: at('2024-03-05T07:00:00Z'), enabled: noHourly, existing: [] }).map((r) => r.interval)).toEqual(['daily', 'weekly', 'monthly']);
  });
});
