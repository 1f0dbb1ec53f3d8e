import { describe, expect, it } from 'vitest';
import type { EnabledIntervals } from '../../lib/backup/index.ts';
import type { RunOutcome, RunTrigger } from './backup-runner.ts';
import { Scheduler, type RunStarter } from './scheduler.ts';
import { captureLogger } from './testing.test-helpers.ts';

const at = (iso: string) => Date.parse(iso);
const iso = (ms: number) => new Date(ms).toISOString().replace('.000Z', 'Z');
const all: EnabledIntervals = { hourly: true, daily: true, weekly: true, monthly: true };
const noHourly: EnabledIntervals = { ...all, hourly: false };

interface Case {
  readonly start: string;
  readonly runOnStart: boolean;
  readonly enabled?: EnabledIntervals;
  /** runMs is how long each run takes on the fake clock. */
  readonly runMs?: number;
  /** timerShortfallMs makes every timer fire this much early (a wall-clock adjustment). */
  readonly timerShortfallMs?: number;
  readonly runs: number;
}

// runSchedule drives a Scheduler on a fake clock until `runs` runs started; returns their start times.
async function runSchedule(c: Case): Promise<string[]> {
  let t = at(c.start);
  const started: string[] = [];
  const log = captureLogger();
  let scheduler: Scheduler | undefined;
  const runner: RunStarter = {
    async start(trigger: RunTrigger): Promise<RunOutcome> {
      expect(trigger).toBe('schedule');
      started.push(iso(t));
      t += c.runMs ?? 0;
      if (started.length === c.runs) void scheduler?.stop();
      return { ok: false, error: new Error('not needed here') };
    },
    idle: async () => {},
  };
  scheduler = new Scheduler({
    runner, enabled: c.enabled ?? all, runOnStart: c.runOnStart, now: () => t, logger: log.logger,
    delay: async (ms) => {
      t += Math.max(1, ms - (c.timerShortfallMs ?? 0));
    },
  });
  scheduler.start();
  await new Promise<void>((resolve) => {
    const poll = setInterval(() => {
      if (started.length >= c.runs) {
        clearInterval(poll);
        resolve();
      }
    }, 1);
  });
  await scheduler.stop();
  log.stop();
  return started;
}

describe('Scheduler', () => {
  it('runs at start with -runOnStart, else at the next full hour, then every hour', async () => {
    const f = async (c: Case, want: string[]) => expect(await runSchedule(c)).toEqual(want);
    await f({ start: '2024-03-05T07:12:34Z', runOnStart: true, runs: 3 }, ['2024-03-05T07:12:34Z', '2024-03-05T08:00:00Z', '2024-03-05T09:00:00Z']);
    await f({ start: '2024-03-05T07:12:34Z', runOnStart: false, runs: 2 }, ['2024-03-05T08:00:00Z', '2024-03-05T09:00:00Z']);
    // without hourly backups: daily at 00:00 UTC after the first run
    await f({ start: '2024-03-05T07:12:34Z', runOnStart: false, enabled: noHourly, runs: 3 }, ['2024-03-05T08:00:00Z', '2024-03-06T00:00:00Z', '2024-03-07T00:00:00Z']);
    // a run longer than the period skips the hour it overran
    await f({ start: '2024-03-05T07:59:00Z', runOnStart: false, runMs: 90 * 60_000, runs: 2 }, ['2024-03-05T08:00:00Z', '2024-03-05T10:00:00Z']);
    // timers that fire early never start a run before its time
    await f({ start: '2024-03-05T07:30:00Z', runOnStart: false, timerShortfallMs: 1000, runs: 2 }, ['2024-03-05T08:00:00Z', '2024-03-05T09:00:00Z']);
  });

  it('waits for a run in flight, and stops while waiting without running', async () => {
    let t = at('2024-03-05T07:00:00Z');
    const calls: string[] = [];
    let releaseIdle: () => void = () => {};
    const runner: RunStarter = {
      start: async () => {
        calls.push(`start ${iso(t)}`);
        return { ok: false, error: new Error('x') };
      },
      idle: () => new Promise<void>((r) => {
        calls.push('idle');
        releaseIdle = r;
      }),
    };
    const log = captureLogger();
    const s = new Scheduler({ runner, enabled: all, runOnStart: true, now: () => t, logger: log.logger, delay: (ms, signal) => new Promise((resolve, reject) => {
      if (ms > 60_000) signal?.addEventListener('abort', () => reject(signal.reason as Error), { once: true }); // the next hour: wait until stopped
      else resolve();
    }) });
    s.start();
    await new Promise((r) => setTimeout(r, 5));
    expect(calls).toEqual(['idle']); // an API run is in flight: the scheduled one waits
    t += 1000;
    releaseIdle();
    await new Promise((r) => setTimeout(r, 5));
    expect(calls).toEqual(['idle', 'start 2024-03-05T07:00:01Z']);
    await s.stop();
    expect(calls).toHaveLength(2);
    expect(log.messages()).toEqual(['next backup run at 2024-03-05T07:00:00.000Z', 'next backup run at 2024-03-05T08:00:00.000Z']);
    log.stop();
  });
});
