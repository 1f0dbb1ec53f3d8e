import { rmSync } from 'node:fs';
import { writeBufferParts } from './buffer-flush.ts';
import type { StorageCore } from './core.ts';
import { errorMessage } from './errors.ts';

// Flushes use a fast zstd level: their parts are small and soon merged away.
const FLUSH_ZSTD_LEVEL = 1;

/**
 * Flusher turns buffered rows into parts, one flush at a time. A flush:
 *  1. synchronously seals the WAL segment, the active buffer and the in-memory index table
 *     (every record in sealed segments is then in a sealed buffer or a frozen index table);
 *  2. writes the sealed buffers as parts (tmp dir, fsync, rename, manifest) and drops them from
 *     memory in the same synchronous step that makes the parts live, so searches never miss rows;
 *  3. writes the frozen index tables as index parts;
 *  4. deletes the sealed WAL segments.
 * A failure leaves buffers, tables and segments in place; the next flush retries them.
 */
export class Flusher {
  readonly #core: StorageCore;
  #chain: Promise<void> = Promise.resolve();
  #queued: Promise<void> | undefined;
  lastDurationMs = 0;

  constructor(core: StorageCore) {
    this.#core = core;
  }

  /** flush runs a flush after any in progress; concurrent callers share one queued flush. */
  flush(): Promise<void> {
    if (this.#queued) return this.#queued;
    const run = this.#chain.then(async () => {
      this.#queued = undefined;
      await this.#flushOnce();
    });
    this.#queued = run;
    this.#chain = run.catch(() => undefined);
    return run;
  }

  /** busy reports whether a flush is running or queued. */
  get busy(): boolean {
    return this.#core.sealed.length > 0 || this.#queued !== undefined;
  }

  /** idle resolves when no flush is running. */
  async idle(): Promise<void> {
    await this.#chain;
  }

  async #flushOnce(): Promise<void> {
    const core = this.#core;
    const started = performance.now();
    const sealedSeq = core.wal.rotate();
    core.sealActive();
    core.index.freeze(core.maxSeriesId);
    const buffers = [...core.sealed];
    const written: string[] = [];
    try {
      if (buffers.some((b) => b.rows > 0)) {
        const parts = await writeBufferParts(buffers, {
          zstdLevel: FLUSH_ZSTD_LEVEL,
          dedupMs: core.opts.minScrapeIntervalMs,
          isDeleted: core.isDeleted,
          tmpDirOf: (partition, name) => core.partition(partition).tmpDir(name),
          signal: new AbortController().signal,
        }, written);
        for (const f of parts) core.partition(f.partition).install(f);
      }
      core.sealed = core.sealed.filter((b) => !buffers.includes(b));
      await core.index.flushFrozen();
      core.wal.removeThrough(sealedSeq);
      core.counters.flushes++;
    } catch (err) {
      core.counters.flushErrors++;
      for (const dir of written) rmSync(dir, { recursive: true, force: true });
      throw new Error(`cannot flush ${buffers.reduce((n, b) => n + b.rows, 0)} buffered rows: ${errorMessage(err)}`, { cause: err });
    } finally {
      this.lastDurationMs = performance.now() - started;
    }
  }
}
