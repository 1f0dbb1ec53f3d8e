// The schedule (SPEC "Scheduling", DECISIONS.md "Schedule"): the first run at start with
// -runOnStart, else at the next full hour; then every full hour when hourly backups are on,
// else every day at 00:00 UTC. Times come from the pure rules in src/lib/backup/rules.

import { firstRunTime, nextRunTime, realDelay, type Delay, type EnabledIntervals, type Now } from '../../lib/backup/index.ts';
import type { Logger } from '../../lib/logger/index.ts';
import type { RunOutcome, RunTrigger } from './backup-runner.ts';

/** RunStarter is the part of BackupRunner the schedule uses. */
export interface RunStarter {
  /** start begins a run now and resolves with its outcome; it throws when it cannot start. */
  start(trigger: RunTrigger): Promise<RunOutcome>;
  /** idle resolves when no run is in flight. */
  idle(): Promise<void>;
}

/** SchedulerOptions configure a Scheduler. */
export interface SchedulerOptions {
  readonly runner: RunStarter;
  readonly enabled: EnabledIntervals;
  readonly runOnStart: boolean;
  readonly now: Now;
  /** delay waits (ms) and rejects when the signal aborts; default real timers. */
  readonly delay?: Delay;
  readonly logger: Logger;
}

/**
 * Scheduler starts runs at the scheduled times. A run still in flight at the next time (one
 * started through the API, or a run longer than the period) is waited for; a period whose time
 * passed during a long run is skipped, not run twice.
 */
export class Scheduler {
  readonly #o: SchedulerOptions;
  readonly #abort = new AbortController();
  #loop: Promise<void> | undefined;

  constructor(o: SchedulerOptions) {
    this.#o = o;
  }

  /** start begins the schedule; calling it twice has no effect. */
  start(): void {
    this.#loop ??= this.#run();
  }

  /** stop ends the schedule (the runner's own stop aborts a run in flight). */
  async stop(): Promise<void> {
    this.#abort.abort(new Error('scheduler stopped'));
    await this.#loop;
  }

  async #run(): Promise<void> {
    const { now, logger } = this.#o;
    const signal = this.#abort.signal;
    let at = firstRunTime(now(), this.#o.runOnStart);
    while (!signal.aborted) {
      logger.info(`next backup run at ${new Date(at).toISOString()}`);
      if (!(await this.#waitUntil(at))) return;
      await this.#o.runner.idle();
      if (signal.aborted) return;
      try {
        await this.#o.runner.start('schedule');
      } catch (err) {
        // start only throws when the runner is stopping or another start won the race
        logger.warn({ err }, 'skipped a scheduled backup run');
      }
      at = nextRunTime(now(), this.#o.enabled);
    }
  }

  // waitUntil sleeps until `at` by the injected clock (timers may fire early when the wall
  // clock is adjusted); false when the scheduler stopped meanwhile.
  async #waitUntil(at: number): Promise<boolean> {
    const delay = this.#o.delay ?? realDelay;
    const signal = this.#abort.signal;
    for (let left = at - this.#o.now(); left > 0; left = at - this.#o.now()) {
      try {
        await delay(left, signal);
      } catch {
        return false;
      }
    }
    return !signal.aborted;
  }
}
