// BackupRunner: the one place backup runs start, so that two never write into the same
// destination at once (the backup library does not guard against that).

import { errorMessage } from '../../lib/backup/index.ts';
import { runBackupOnce, type RunContext, type RunReport } from './backup-run.ts';
import { ApiError } from './errors.ts';
import { recordRunFinished, recordRunStarted } from './metrics.ts';

/** RunOutcome is how a run ended; runs never reject. */
export type RunOutcome =
  | { readonly ok: true; readonly report: RunReport }
  | { readonly ok: false; readonly error: Error };

/** RunTrigger says what started a run (the `trigger` label of backupmanager_runs_total). */
export type RunTrigger = 'schedule' | 'api';

/**
 * BackupRunner runs backups one at a time. `start` refuses while a run is in flight; the
 * scheduler waits for `idle` instead. `stop` aborts the run in flight and waits until it has
 * cleaned up (its snapshot deleted).
 */
export class BackupRunner {
  readonly #ctx: RunContext;
  #current: { promise: Promise<RunOutcome>; abort: AbortController; startedAt: number } | undefined;
  #stopped = false;

  constructor(ctx: RunContext) {
    this.#ctx = ctx;
  }

  /** running tells whether a run is in flight. */
  get running(): boolean {
    return this.#current !== undefined;
  }

  /**
   * start begins a run now and returns its outcome. It throws ApiError 'in_progress'
   * synchronously when a run is in flight, and an Error after stop().
   */
  start(trigger: RunTrigger): Promise<RunOutcome> {
    if (this.#stopped) throw new Error('cannot start a backup: the backup manager is stopping');
    if (this.#current) {
      const since = new Date(this.#current.startedAt).toISOString();
      throw new ApiError('in_progress', `backup to ${this.#ctx.dst.url} is in progress since ${since}; try again when it finishes`);
    }
    const abort = new AbortController();
    const startedAt = this.#ctx.now();
    const promise = this.#run(trigger, abort.signal, startedAt).finally(() => {
      this.#current = undefined;
      recordRunFinished();
    });
    this.#current = { promise, abort, startedAt };
    return promise;
  }

  async #run(trigger: RunTrigger, signal: AbortSignal, startedAt: number): Promise<RunOutcome> {
    const log = this.#ctx.logger;
    recordRunStarted(trigger);
    log.info(`starting a backup run (${trigger}) to ${this.#ctx.dst.url}`);
    try {
      const report = await runBackupOnce(this.#ctx, signal);
      const seconds = ((this.#ctx.now() - startedAt) / 1000).toFixed(3);
      const copied = report.copies.map((c) => c.to);
      log.info(`backup run finished in ${seconds}s` + (copied.length > 0 ? `; copied into ${copied.join(', ')}` : '') +
        (report.deleted.length > 0 ? `; deleted ${report.deleted.join(', ')}` : ''));
      return { ok: true, report };
    } catch (err) {
      const error = err instanceof Error ? err : new Error(errorMessage(err));
      log.error({ err: error }, 'backup run failed; the next run resumes it, transferring only what is missing');
      return { ok: false, error };
    }
  }

  /** idle resolves when no run is in flight. */
  async idle(): Promise<void> {
    while (this.#current) await this.#current.promise;
  }

  /** stop refuses new runs, aborts the run in flight and waits for it to finish cleaning up. */
  async stop(): Promise<void> {
    this.#stopped = true;
    this.#current?.abort.abort(new Error('the backup manager is stopping'));
    await this.idle();
  }
}
