// Scheduling (SPEC "Scheduling", DECISIONS.md "Schedule"): each run syncs `latest`, then
// copies it into the interval folders that are due. Runs happen every hour on the hour when
// hourly backups are enabled, else every day at 00:00 UTC. The first run is at the next full
// hour, or at start with runOnStart.

import { INTERVALS, intervalBackupName, type Interval } from './interval-name.ts';

const HOUR_MS = 3_600_000;
const DAY_MS = 86_400_000;

/** EnabledIntervals tells which intervals are on (the `-disable*` flags turn them off). */
export type EnabledIntervals = Readonly<Record<Interval, boolean>>;

/** nextRunTime returns the first run time strictly after `afterMs`: the next full UTC hour when hourly is enabled, else the next 00:00 UTC. */
export function nextRunTime(afterMs: number, enabled: EnabledIntervals): number {
  const step = enabled.hourly ? HOUR_MS : DAY_MS;
  return Math.floor(afterMs / step) * step + step;
}

/** firstRunTime returns when the first run happens for a process started at `startMs`. */
export function firstRunTime(startMs: number, runOnStart: boolean): number {
  return runOnStart ? startMs : Math.floor(startMs / HOUR_MS) * HOUR_MS + HOUR_MS;
}

/** DueRun is an interval folder that a run must fill by copying `latest`. */
export interface DueRun {
  readonly interval: Interval;
  readonly name: string;
}

/** DueRunsInput is the input of dueRuns. */
export interface DueRunsInput {
  /** now is the run time in milliseconds. */
  readonly now: number;
  readonly enabled: EnabledIntervals;
  /** existing holds the names of the complete backups already in the destination. */
  readonly existing: Iterable<string>;
}

/**
 * dueRuns returns, in interval order, the enabled interval folders for the period containing
 * `now` that do not exist yet. So each period gets one copy, taken by its first successful
 * run, and a restarted process picks up where the destination says it is.
 */
export function dueRuns(input: DueRunsInput): DueRun[] {
  const have = new Set(input.existing);
  const out: DueRun[] = [];
  for (const interval of INTERVALS) {
    if (!input.enabled[interval]) continue;
    const name = intervalBackupName(interval, input.now);
    if (!have.has(name)) out.push({ interval, name });
  }
  return out;
}
