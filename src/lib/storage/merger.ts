import type { StorageCore } from './core.ts';
import { errorMessage } from './common/errors.ts';
import type { BackgroundRunner } from './background/runner.ts';
import type { MergeSettings } from './partition.ts';
import { retentionMinTs } from './retention.ts';

/**
 * Merger runs background merges one at a time: for every partition, merges the policy picks,
 * then index merges, until nothing is worth merging. kick() starts it (after flushes); forced
 * merges queue behind it on the same chain, so two merges never run at once. stop() aborts a
 * running merge (its output is discarded; inputs stay) and waits for the chain to drain.
 */
export class Merger {
  readonly #core: StorageCore;
  readonly #runner: BackgroundRunner;
  readonly #abort = new AbortController();
  #chain: Promise<void> = Promise.resolve();
  #busy = 0;
  #loopQueued = false;
  #again = false;

  constructor(core: StorageCore, runner: BackgroundRunner) {
    this.#core = core;
    this.#runner = runner;
  }

  #options(): MergeSettings {
    const core = this.#core;
    return {
      zstdLevel: core.opts.zstdLevel,
      dedupMs: core.opts.minScrapeIntervalMs,
      minTs: retentionMinTs(core.opts.now(), core.opts.retentionMs),
      maxTs: Infinity,
      deleted: core.deleted.sorted(),
      signal: this.#abort.signal,
      runner: this.#runner,
    };
  }

  // exclusive runs work after everything queued before it; the chain itself never rejects.
  #exclusive<T>(work: () => Promise<T>): Promise<T> {
    const run = this.#chain.then(async () => {
      this.#abort.signal.throwIfAborted();
      this.#busy++;
      try {
        return await work();
      } finally {
        this.#busy--;
      }
    });
    this.#chain = run.then(
      () => undefined,
      () => undefined,
    );
    return run;
  }

  /** kick starts background merging unless it is queued already (then it runs once more). */
  kick(): void {
    if (this.#abort.signal.aborted) return;
    if (this.#loopQueued) {
      this.#again = true;
      return;
    }
    this.#loopQueued = true;
    this.#exclusive(() => this.#loop())
      .catch(() => undefined)
      .finally(() => {
        this.#loopQueued = false;
      });
  }

  async #loop(): Promise<void> {
    do {
      this.#again = false;
      for (const p of [...this.#core.partitions.values()]) {
        while (!this.#abort.signal.aborted && (await this.#guard(() => p.mergeOnce(this.#options()))));
      }
      while (!this.#abort.signal.aborted && (await this.#guard(() => this.#core.index.mergeOnce(this.#abort.signal))));
    } while (this.#again && !this.#abort.signal.aborted);
  }

  async #guard(run: () => Promise<boolean>): Promise<boolean> {
    try {
      return await run();
    } catch (err) {
      if (this.#abort.signal.aborted) return false;
      this.#core.counters.mergeErrors++;
      this.#core.opts.logger.error({ err: errorMessage(err) }, 'background merge failed; will retry later');
      return false;
    }
  }

  /**
   * forceMerge merges every partition whose name starts with prefix (all when empty) into as few
   * parts as possible, and the index likewise; a partition with one part gets it rewritten.
   * Runs after background merging in progress.
   */
  forceMerge(prefix = ''): Promise<void> {
    return this.#exclusive(async () => {
      for (const p of [...this.#core.partitions.values()]) {
        // A lone part is rewritten too, so deletions and retention reach it.
        if (p.name.startsWith(prefix)) await p.forceMerge(this.#options(), true);
      }
      await this.#core.index.forceMerge(this.#abort.signal, true);
    });
  }

  /** forceMergeIndex rewrites the whole index (drops per-day items retention no longer keeps). */
  forceMergeIndex(): Promise<void> {
    return this.#exclusive(() => this.#core.index.forceMerge(this.#abort.signal, true));
  }

  /** running reports whether a merge is in progress. */
  get running(): boolean {
    return this.#busy > 0;
  }

  async stop(): Promise<void> {
    this.#abort.abort(new Error('storage is closing'));
    await this.#chain;
  }
}
