import type { Now } from './clock.ts';

/** Progress is a snapshot of a running transfer. */
export interface Progress {
  /** bytesDone counts bytes transferred so far (uploaded, or downloaded for a restore). */
  readonly bytesDone: number;
  /** bytesTotal is what the run has to transfer (server-side copies excluded). */
  readonly bytesTotal: number;
  readonly partsDone: number;
  readonly partsTotal: number;
  /** bytesPerSecond is the average rate since the run started. */
  readonly bytesPerSecond: number;
  /** etaSeconds is the estimated time left at that rate; undefined until bytes have moved. */
  readonly etaSeconds: number | undefined;
}

/** OnProgress receives progress reports; it must not throw. */
export type OnProgress = (p: Progress) => void;

/** ProgressTrackerOptions configures a ProgressTracker. */
export interface ProgressTrackerOptions {
  readonly bytesTotal: number;
  readonly partsTotal: number;
  readonly now: Now;
  readonly onProgress?: OnProgress | undefined;
  /** intervalMs is the minimum time between reports (the final report is always sent); default 1000. */
  readonly intervalMs?: number | undefined;
}

/**
 * ProgressTracker accumulates transferred bytes from all workers and reports at most once per
 * interval, plus once at finish().
 */
export class ProgressTracker {
  readonly #opts: ProgressTrackerOptions;
  readonly #start: number;
  readonly #interval: number;
  #lastReport = Number.NEGATIVE_INFINITY;
  #bytesDone = 0;
  #partsDone = 0;

  constructor(opts: ProgressTrackerOptions) {
    this.#opts = opts;
    this.#start = opts.now();
    this.#interval = opts.intervalMs ?? 1000;
  }

  /** addBytes records `n` more transferred bytes. */
  addBytes(n: number): void {
    this.#bytesDone += n;
    this.#maybeReport();
  }

  /** partDone records one finished part. */
  partDone(): void {
    this.#partsDone++;
    this.#maybeReport();
  }

  /** snapshot returns the current progress. */
  snapshot(): Progress {
    const elapsedSec = (this.#opts.now() - this.#start) / 1000;
    const rate = elapsedSec > 0 ? this.#bytesDone / elapsedSec : 0;
    const left = Math.max(0, this.#opts.bytesTotal - this.#bytesDone);
    return {
      bytesDone: this.#bytesDone,
      bytesTotal: this.#opts.bytesTotal,
      partsDone: this.#partsDone,
      partsTotal: this.#opts.partsTotal,
      bytesPerSecond: rate,
      etaSeconds: left === 0 ? 0 : rate > 0 ? left / rate : undefined,
    };
  }

  /** finish sends the final report. */
  finish(): void {
    this.#opts.onProgress?.(this.snapshot());
  }

  #maybeReport(): void {
    if (!this.#opts.onProgress) return;
    const t = this.#opts.now();
    if (t - this.#lastReport < this.#interval) return;
    this.#lastReport = t;
    this.#opts.onProgress(this.snapshot());
  }
}
