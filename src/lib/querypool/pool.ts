import { Worker } from 'node:worker_threads';
import type { RollupSpec } from '../query/rollup-run.ts';
import { counter } from '../metrics/index.ts';
import { resultBytes, transferables, type BatchResult, type BlockBatch } from './batch.ts';
import { BatchError, WorkerFailure } from './errors.ts';
import { BufferPool } from './buffers.ts';
import type { FromWorker, ToWorker } from './protocol.ts';

const workersStarted = counter('tsdb_query_workers_started_total', 'Query worker threads started, by reason: first (of a slot, or after idling), replaced (the previous one died)', ['reason']);
/**
 * WORKER_IDLE_MS: how long a worker without work waits before it exits. 10 s, so a worker lives
 * through a run of queries, not only through one query's batches: a start costs ~0.1 CPU-s and the
 * fresh isolate runs the decoders and rollups cold until they are compiled again; with 1 s (doubling
 * up to 4 s) the kit's query pattern restarted it between its serial set and its 4 clients, and
 * that phase took 28.9 against 26.7 CPU-ms per query (S force-merged dir, three alternated runs).
 * What waiting costs: the idle worker's ~6 MiB of RSS (its exit gave back 5.6–5.9 MiB), for 10 s
 * after the last batch; the batch buffers go back sooner (BUFFER_IDLE_MS).
 */
export const WORKER_IDLE_MS = 10_000;

/** BUFFER_IDLE_MS: free batch and result buffers (up to 8 MiB per worker) are dropped after this long unused. */
export const BUFFER_IDLE_MS = 1_000;

/**
 * WORKER_LIMITS: a worker's V8 heap. It keeps nothing between batches but a decoder's scratch (its
 * batches and results are ArrayBuffers outside the heap) and allocates a few small objects per
 * series, so a 4 MiB young generation (the process's --max-semi-space-size=4 gives 12) is enough.
 */
const WORKER_LIMITS = { maxYoungGenerationSizeMb: 4 };

const tasksFailed = counter('tsdb_query_worker_deaths_total', 'Query worker threads that died while evaluating (the query failed; the worker was replaced)', []);

/** QueryPoolOptions configure a QueryPool. */
export interface QueryPoolOptions {
  /** size: worker threads at most (>= 1); each starts on first use. */
  readonly size: number;
  /** maxQueued: batches waiting for a worker at most; run() waits for room beyond it. */
  readonly maxQueued: number;
  /** idleMs: a worker without work for this long exits (its memory goes back); default WORKER_IDLE_MS. */
  readonly idleMs?: number;
  /** bufferIdleMs: free batch and result buffers are dropped after this long unused; default BUFFER_IDLE_MS. */
  readonly bufferIdleMs?: number;
  /** workerUrl is the worker's entry module (tests point it elsewhere). */
  readonly workerUrl?: URL;
  /**
   * bufferBytes: free batch and result memory kept for reuse at most (buffers.ts); default 8 MiB
   * per worker, about what four queries' windows of batches (offload.ts) keep in circulation.
   */
  readonly bufferBytes?: number;
}

interface Task {
  readonly id: number;
  readonly spec: RollupSpec;
  readonly batch: BlockBatch;
  /** series: how many the batch holds (its buffers are gone once posted). */
  readonly series: number;
  readonly signal: AbortSignal;
  readonly resolve: (r: BatchResult) => void;
  readonly reject: (e: Error) => void;
}

/** Slot is one worker place: its thread (started on demand) and the task it runs. */
interface Slot {
  readonly index: number;
  worker: Worker | undefined;
  task: Task | undefined;
  idle: NodeJS.Timeout | undefined;
  /** error: what the thread reported before it exited (its uncaught exception). */
  error: Error | undefined;
  died: boolean;
}

/**
 * QueryPool runs rollup batches (batch.ts) on worker threads, one batch per worker at a time,
 * first come first served from one bounded queue. It does not limit queries: the caller's
 * concurrency limit (-search.maxConcurrentRequests) stays what bounds them, and each query keeps
 * a bounded window of batches in flight (offload.ts), so the queue holds at most that many per
 * running query; maxQueued is the backstop.
 */
export class QueryPool {
  /**
   * buffers: memory for batches (BatchBuilder.take) and results. A batch's buffer comes back here
   * once its worker read it; a result's is the caller's, to give back once read.
   */
  readonly buffers: BufferPool;
  readonly #o: QueryPoolOptions;
  readonly #slots: Slot[];
  readonly #queue: Task[] = [];
  readonly #roomWaiters: (() => void)[] = [];
  #nextId = 1;
  #closed = false;
  readonly #idleMs: number;

  constructor(o: QueryPoolOptions) {
    if (!(Number.isInteger(o.size) && o.size >= 1)) throw new RangeError(`a query pool needs at least one worker; got ${o.size}`);
    if (!(Number.isInteger(o.maxQueued) && o.maxQueued >= 1)) throw new RangeError(`a query pool needs room for at least one queued batch; got ${o.maxQueued}`);
    this.#o = o;
    this.#idleMs = o.idleMs ?? WORKER_IDLE_MS;
    this.buffers = new BufferPool({ maxBytes: o.bufferBytes ?? o.size * 8 * 1024 * 1024, idleMs: o.bufferIdleMs ?? BUFFER_IDLE_MS });
    this.#slots = Array.from({ length: o.size }, (_, index) => ({ index, worker: undefined, task: undefined, idle: undefined, error: undefined, died: false }));
  }

  get size(): number {
    return this.#o.size;
  }

  /**
   * saturated: every worker has a batch and at least as many more wait in the queue, so a batch
   * run() takes now would wait for a whole batch's evaluation before a worker starts it. The
   * offload then evaluates it on the calling thread instead (offload.ts, "caller runs").
   */
  get saturated(): boolean {
    let busy = 0;
    for (const s of this.#slots) if (s.task !== undefined) busy++;
    return busy === this.#slots.length && this.#queue.length >= this.#slots.length;
  }

  /** running: worker threads alive now. */
  get running(): number {
    return this.#slots.filter((s) => s.worker !== undefined).length;
  }

  /**
   * run evaluates spec over batch on a worker; the batch's buffers are transferred (unusable
   * here after; the pool reuses them). The result's buffer is the caller's: give it back to
   * buffers (bufferOf) once nothing reads it. Rejects with the signal's reason when aborted before a worker takes it, with
   * BatchError (the index of the series) when evaluation failed, or with WorkerFailure when the
   * worker died.
   */
  async run(spec: RollupSpec, batch: BlockBatch, signal: AbortSignal): Promise<BatchResult> {
    while (this.#queue.length >= this.#o.maxQueued && !this.#closed) await new Promise<void>((r) => this.#roomWaiters.push(r));
    if (this.#closed) throw new Error('cannot evaluate a rollup batch: the query pool is closed');
    signal.throwIfAborted();
    return new Promise<BatchResult>((resolve, reject) => {
      this.#queue.push({ id: this.#nextId++, spec, batch, series: batch.bounds.length - 1, signal, resolve, reject });
      this.#pump();
    });
  }

  /** close stops every worker; batches queued or running fail. */
  async close(): Promise<void> {
    this.#closed = true;
    this.buffers.clear();
    for (const t of this.#queue.splice(0)) t.reject(new Error('cannot evaluate a rollup batch: the query pool closed'));
    for (const w of this.#roomWaiters.splice(0)) w();
    await Promise.all(this.#slots.map(async (s) => {
      clearTimeout(s.idle);
      const w = s.worker;
      s.worker = undefined;
      s.task?.reject(new Error('cannot evaluate a rollup batch: the query pool closed'));
      s.task = undefined;
      if (w !== undefined) await w.terminate();
    }));
  }

  #pump(): void {
    for (const slot of this.#slots) {
      if (slot.task !== undefined) continue;
      const task = this.#next();
      if (task === undefined) return;
      clearTimeout(slot.idle);
      slot.idle = undefined;
      slot.task = task;
      const w = slot.worker ?? this.#start(slot);
      const out = this.buffers.take(resultBytes(task.spec, task.series));
      w.postMessage({ id: task.id, spec: task.spec, batch: task.batch, out } satisfies ToWorker, [...transferables(task.batch), out]);
    }
  }

  // next takes the oldest queued task whose query is still running (aborted ones are rejected).
  #next(): Task | undefined {
    for (;;) {
      const t = this.#queue.shift();
      if (t === undefined) return undefined;
      this.#roomWaiters.shift()?.();
      if (!t.signal.aborted) return t;
      t.reject(t.signal.reason as Error);
    }
  }

  #start(slot: Slot): Worker {
    const w = new Worker(this.#o.workerUrl ?? new URL('./worker.ts', import.meta.url), { resourceLimits: WORKER_LIMITS });
    // The pool never keeps the process alive: queries waiting on it belong to servers that do.
    w.unref();
    workersStarted.inc({ reason: slot.died ? 'replaced' : 'first' });
    slot.worker = w;
    slot.error = undefined;
    slot.died = false;
    w.on('message', (m: FromWorker) => this.#done(slot, m));
    w.on('error', (err) => {
      slot.error = err;
    });
    w.on('exit', (code) => {
      if (slot.worker !== w) return; // stopped on purpose (idle, close)
      slot.worker = undefined;
      slot.died = true;
      const t = slot.task;
      slot.task = undefined;
      if (t !== undefined) {
        tasksFailed.inc();
        const why = slot.error === undefined ? `exited with code ${code}` : `failed: ${slot.error.message}`;
        t.reject(new WorkerFailure(`cannot evaluate ${t.spec.func}() over ${t.series} series: query worker ${slot.index} ${why}; it is replaced for the next query`, { cause: slot.error }));
      }
      this.#pump();
    });
    return w;
  }

  #done(slot: Slot, m: FromWorker): void {
    const t = slot.task;
    if (t === undefined || t.id !== m.id) return;
    slot.task = undefined;
    if (m.ok) {
      this.buffers.give(m.input);
      t.resolve(m.result);
    } else t.reject(new BatchError(m.series, m.message));
    this.#pump();
    if (slot.task === undefined && slot.worker !== undefined) this.#idleLater(slot);
  }

  #idleLater(slot: Slot): void {
    clearTimeout(slot.idle);
    slot.idle = setTimeout(() => {
      const w = slot.worker;
      if (w === undefined || slot.task !== undefined) return;
      slot.worker = undefined;
      slot.died = false;
      void w.terminate();
    }, this.#idleMs);
    slot.idle.unref();
  }
}
