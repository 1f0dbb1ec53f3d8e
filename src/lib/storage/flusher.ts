import { rmSync } from 'node:fs';
import { join } from 'node:path';
import type { BackgroundRunner } from './background/runner.ts';
import type { StorageCore } from './core.ts';
import { errorMessage } from './common/errors.ts';

// Flushed parts are not zstd-compressed: they are small and soon merged away, and a zstd call
// costs ~10 µs of fixed overhead per block.
const FLUSH_ZSTD_LEVEL = 0;

/**
 * Flusher turns buffered rows into parts in two steps.
 *  seal() (synchronous, on the write path or a timer): rotates the WAL segment, seals the active
 *    buffer and freezes the in-memory index table — every record in sealed segments is then in a
 *    sealed buffer or a frozen index table;
 *  the drain (asynchronous, one at a time): the background runner writes sealed buffers as parts
 *    in tmp dirs; the main thread moves them into place, lists them in manifests and drops the
 *    buffers in one synchronous step (searches never miss rows), writes frozen index tables as
 *    index parts, and only then deletes the sealed WAL segments.
 * A failed drain leaves buffers, tables and segments in place; the next drain retries them.
 */
export class Flusher {
  readonly #core: StorageCore;
  readonly #runner: BackgroundRunner;
  #sealedSeq = 0;
  #draining: Promise<void> | undefined;
  lastDurationMs = 0;

  constructor(core: StorageCore, runner: BackgroundRunner) {
    this.#core = core;
    this.#runner = runner;
  }

  /** seal closes the active buffer for writes and starts draining; no-op when there is nothing new. */
  seal(): void {
    const core = this.#core;
    if (core.active.rows === 0 && core.index.mutableItems === 0) return;
    this.#sealedSeq = core.wal.rotate();
    core.sealActive();
    core.index.freeze(core.maxSeriesId);
    this.#kick();
  }

  #kick(): void {
    if (this.#draining) return;
    this.#draining = this.#drain().finally(() => {
      this.#draining = undefined;
    });
    this.#draining.catch((err: unknown) => this.#core.opts.logger.error({ err: errorMessage(err) }, 'cannot flush buffered rows; they stay in memory and in the WAL, retrying at the next flush'));
  }

  /** draining reports whether sealed data is being written now. */
  get draining(): boolean {
    return this.#draining !== undefined;
  }

  /** pending reports whether sealed data waits to be written. */
  get pending(): boolean {
    return this.#core.sealed.length > 0 || this.#core.index.frozenCount > 0;
  }

  /**
   * flush seals what is buffered and resolves when everything sealed so far is in parts and the
   * WAL is trimmed; rejects when writing fails.
   */
  async flush(): Promise<void> {
    this.seal();
    if (!this.#draining && this.pending) this.#kick();
    while (this.#draining) await this.#draining;
    // Nothing buffered or pending: segments before the current one hold nothing that is not in
    // parts (for example the empty segment of the previous run).
    const core = this.#core;
    if (core.active.rows === 0 && core.index.mutableItems === 0 && !this.pending) core.wal.removeThrough(core.wal.currentSeq - 1);
  }

  /** idle resolves when no drain is running (it does not throw). */
  async idle(): Promise<void> {
    while (this.#draining) await this.#draining.catch(() => undefined);
  }

  async #drain(): Promise<void> {
    const core = this.#core;
    while (this.pending) {
      const started = performance.now();
      const buffers = [...core.sealed];
      const seq = this.#sealedSeq;
      try {
        if (buffers.some((b) => b.rows > 0)) {
          const parts = await this.#runner.flush({
            buffers: buffers.map((b) => b.share()),
            dataDir: core.paths.data,
            zstdLevel: FLUSH_ZSTD_LEVEL,
            dedupMs: core.opts.minScrapeIntervalMs,
            deleted: core.deleted.sorted(),
          }).catch((err: unknown) => {
            throw new Error(`cannot write ${buffers.reduce((n, b) => n + b.rows, 0)} buffered rows as parts: ${errorMessage(err)}`, { cause: err });
          });
          // Installing makes the parts visible and the sealed buffers redundant: drop those in
          // the same synchronous step, then wait for the manifests to be durable.
          const persisted: Promise<void>[] = [];
          try {
            for (const p of parts) persisted.push(core.partition(p.partition).install(p));
          } catch (err) {
            for (const p of parts.slice(persisted.length)) rmSync(join(core.paths.data, p.partition, p.name), { recursive: true, force: true });
            throw err;
          }
          core.dropSealed(buffers);
          await Promise.all(persisted);
        }
        if (core.sealed.some((b) => buffers.includes(b))) core.dropSealed(buffers);
        await core.index.flushFrozen();
        core.wal.removeThrough(seq);
        core.counters.flushes++;
      } catch (err) {
        core.counters.flushErrors++;
        throw err;
      } finally {
        this.lastDurationMs = performance.now() - started;
      }
    }
  }
}
