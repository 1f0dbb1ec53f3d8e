import { Worker } from 'node:worker_threads';
import type { StorageLogger } from '../common/logger.ts';
import { LruCache } from '../common/lru-cache.ts';
import type { BlockHeaders, PartMeta } from '../part/part-format.ts';
import { type IndexFlushRequest, type IndexMergeRequest, type IndexRunner, runIndexFlush, runIndexMerge } from '../index/index-tasks.ts';
import { type FlushRequest, type MergeRequest, type WrittenPart, runFlush, runMerge } from './tasks.ts';
import type { WorkerMessage, WorkerReply } from './worker-main.ts';

/** BackgroundRunner executes flush and merge requests, on this thread or another. */
export interface BackgroundRunner extends IndexRunner {
  flush(req: FlushRequest): Promise<WrittenPart[]>;
  merge(req: MergeRequest, signal: AbortSignal): Promise<PartMeta | undefined>;
  close(): Promise<void>;
}

/** InlineRunner runs requests on the calling thread (yielding to the event loop as they go). */
export class InlineRunner implements BackgroundRunner {
  readonly #cache = new LruCache<BlockHeaders>(16 * 2 ** 20);
  readonly #indexCache = new LruCache<string[]>(4 * 2 ** 20);

  flush(req: FlushRequest): Promise<WrittenPart[]> {
    return runFlush(req, new AbortController().signal);
  }

  merge(req: MergeRequest, signal: AbortSignal): Promise<PartMeta | undefined> {
    return runMerge(req, signal, this.#cache);
  }

  indexFlush(req: IndexFlushRequest): Promise<string> {
    return runIndexFlush(req);
  }

  indexMerge(req: IndexMergeRequest, signal: AbortSignal): Promise<string> {
    return runIndexMerge(req, signal, this.#indexCache);
  }

  async close(): Promise<void> {}
}

interface Pending {
  readonly worker: Worker;
  resolve(v: unknown): void;
  reject(e: Error): void;
}

/** WORKER_IDLE_MS is how long the worker thread first waits for a request before it exits. */
export const WORKER_IDLE_MS = 10_000;
/** MAX_WORKER_IDLE_MS bounds the wait after it was doubled (see WorkerRunnerOptions.idleMs). */
export const MAX_WORKER_IDLE_MS = 600_000;

/** WorkerRunnerOptions tune a WorkerRunner; tests shorten the times. */
export interface WorkerRunnerOptions {
  /** url is the worker's entry module. */
  readonly url?: URL;
  /**
   * idleMs: the worker exits after this long without requests (default WORKER_IDLE_MS). When
   * work comes back sooner than that after an exit, the wait doubles (up to
   * MAX_WORKER_IDLE_MS), so a steady trickle of flushes does not restart a worker every time.
   */
  readonly idleMs?: number;
  /** now returns the time in ms (injected for tests). */
  readonly now?: () => number;
}

/**
 * WorkerRunner sends requests to one worker thread (started on first use, restarted after it
 * dies; after three deaths without ever answering, it runs requests inline). The worker keeps
 * the process alive only while a request is pending, and exits after idleMs without requests:
 * an idle worker kept its V8 heap, the shared buffer memory of the last flushes (until its own
 * next collection, which an idle thread never runs) and its caches — 30–40 MiB of resident
 * memory between loads. Starting it again costs ~200 ms, once per burst of work.
 */
export class WorkerRunner implements BackgroundRunner {
  readonly #logger: StorageLogger;
  #worker: Worker | undefined;
  readonly #pending = new Map<number, Pending>();
  #nextId = 1;
  #closed = false;
  // Workers that died without ever answering; after a few, work runs on this thread instead
  // (an environment that cannot start workers must still flush).
  #deadStarts = 0;
  #answered = false;
  #inline: InlineRunner | undefined;
  #idleMs: number;
  #idleTimer: NodeJS.Timeout | undefined;
  #retiredAt = Number.NEGATIVE_INFINITY;
  readonly #now: () => number;
  /** starts counts worker threads started (tests watch retirement through it). */
  starts = 0;

  readonly #url: URL;

  constructor(logger: StorageLogger, o: WorkerRunnerOptions = {}) {
    this.#logger = logger;
    this.#url = o.url ?? new URL('./worker-main.ts', import.meta.url);
    this.#idleMs = o.idleMs ?? WORKER_IDLE_MS;
    this.#now = o.now ?? performance.now.bind(performance);
  }

  /** idleMs is the current wait before an idle worker exits. */
  get idleMs(): number {
    return this.#idleMs;
  }

  /** running reports whether a worker thread is alive. */
  get running(): boolean {
    return this.#worker !== undefined;
  }

  #start(): Worker {
    if (this.#worker) return this.#worker;
    if (this.#now() - this.#retiredAt < this.#idleMs) this.#idleMs = Math.min(this.#idleMs * 2, MAX_WORKER_IDLE_MS);
    // A small young generation keeps the worker's heap (and the process RSS) small; its work
    // allocates mostly short-lived typed arrays and buffers.
    const w = new Worker(this.#url, { resourceLimits: { maxYoungGenerationSizeMb: 8 } });
    this.starts++;
    w.on('message', (r: WorkerReply) => {
      this.#answered = true;
      const p = this.#pending.get(r.id);
      if (!p) return;
      this.#pending.delete(r.id);
      // Every pending request is the current worker's: a worker is retired only with none, and one
      // that died has its own rejected on exit (that is what Pending.worker is for).
      if (this.#pending.size === 0) {
        w.unref();
        this.#armIdle(w);
      }
      if (r.ok) p.resolve(r.result);
      else p.reject(new Error(r.error));
    });
    w.on('error', (err) => this.#logger.error({ err: err.message }, 'storage background worker failed'));
    w.on('exit', (code) => {
      if (this.#worker === w) this.#worker = undefined;
      if (!this.#answered && ++this.#deadStarts >= 3 && !this.#closed) {
        this.#logger.error({ code }, 'storage background worker cannot start; flushing and merging on the main thread instead');
        this.#inline = new InlineRunner();
      }
      for (const [id, p] of this.#pending) {
        if (p.worker !== w) continue;
        this.#pending.delete(id);
        p.reject(new Error(`storage background worker exited with code ${code}`));
      }
    });
    w.unref();
    this.#worker = w;
    return w;
  }

  // armIdle retires worker w once it has had no request for idleMs.
  #armIdle(w: Worker): void {
    clearTimeout(this.#idleTimer);
    this.#idleTimer = setTimeout(() => {
      if (this.#worker !== w || this.#pending.size > 0) return;
      this.#worker = undefined;
      this.#retiredAt = this.#now();
      void w.terminate();
    }, this.#idleMs);
    this.#idleTimer.unref();
  }

  #call<T>(msg: (id: number) => WorkerMessage, signal?: AbortSignal, transfer: ArrayBuffer[] = []): Promise<T> {
    if (this.#closed) return Promise.reject(new Error('storage background worker is closed'));
    clearTimeout(this.#idleTimer);
    const w = this.#start();
    const id = this.#nextId++;
    return new Promise<T>((resolve, reject) => {
      this.#pending.set(id, { worker: w, resolve: resolve as (v: unknown) => void, reject });
      w.ref();
      w.postMessage(msg(id), transfer);
      signal?.addEventListener('abort', () => w.postMessage({ type: 'abort', id } satisfies WorkerMessage), { once: true });
    });
  }

  flush(req: FlushRequest): Promise<WrittenPart[]> {
    if (this.#inline) return this.#inline.flush(req);
    return this.#call((id) => ({ type: 'flush', id, req }));
  }

  merge(req: MergeRequest, signal: AbortSignal): Promise<PartMeta | undefined> {
    signal.throwIfAborted();
    if (this.#inline) return this.#inline.merge(req, signal);
    return this.#call((id) => ({ type: 'merge', id, req }), signal);
  }

  indexFlush(req: IndexFlushRequest): Promise<string> {
    if (this.#inline) return this.#inline.indexFlush(req);
    // The packed items move to the worker without a copy.
    return this.#call((id) => ({ type: 'indexFlush', id, req }), undefined, [req.items.buffer as ArrayBuffer]);
  }

  indexMerge(req: IndexMergeRequest, signal: AbortSignal): Promise<string> {
    signal.throwIfAborted();
    if (this.#inline) return this.#inline.indexMerge(req, signal);
    return this.#call((id) => ({ type: 'indexMerge', id, req }), signal);
  }

  async close(): Promise<void> {
    this.#closed = true;
    clearTimeout(this.#idleTimer);
    await this.#worker?.terminate();
  }
}

/** createRunner returns a worker-thread runner, or an inline one when threads is 0. */
export function createRunner(threads: number, logger: StorageLogger): BackgroundRunner {
  return threads > 0 ? new WorkerRunner(logger) : new InlineRunner();
}
