import { Worker } from 'node:worker_threads';
import type { Logger } from '../logger/index.ts';
import { counter } from '../metrics/index.ts';
import * as common from '../protoparser/common/index.ts';
import { KeyMirror } from './key-mirror.ts';
import type { FromWorker, ToWorker, WorkerConfig } from './parse-protocol.ts';

const workersStarted = counter('tsdb_insert_parse_workers_started_total', 'Parse worker threads started, by reason: first, more (concurrent bodies), replaced (the series-key dictionary of one filled up), died', ['reason']);

/** ParsePoolOptions configure a ParsePool. */
export interface ParsePoolOptions {
  /** workers is how many worker threads parse at most at once (>= 1). */
  readonly workers: number;
  /** keyBytesPerWorker: a worker whose series-key dictionary grows past this is replaced once idle. */
  readonly keyBytesPerWorker: number;
  /** batchSize is about how many rows each onBatch call receives (default DEFAULT_BATCH_SIZE). */
  readonly batchSize?: number;
  readonly logger: Logger;
  /** workerUrl is the worker's entry module (tests point it elsewhere). */
  readonly workerUrl?: URL;
}

/** PoolParseOptions describe one body for ParsePool.parsePrometheus. */
export interface PoolParseOptions {
  readonly contentEncoding?: string | undefined;
  readonly maxDecodedBytes?: number;
  /** now (ms) stamps lines without a timestamp; read once per chunk. */
  readonly now: () => number;
  /** onBatch stores a batch; awaited in order. The batch's arrays are not reused. */
  readonly onBatch: (batch: common.KeyedColumns) => Promise<void>;
  /**
   * metadata receives what the body's HELP/TYPE/UNIT lines say, in order with its batches; the
   * worker skips lines it handed on lately for the same tenantKey.
   */
  readonly metadata?: { readonly sink: common.MetadataSink; readonly tenantKey: string } | undefined;
}

// Decoded chunks a job may have sent but not seen parsed and their batches stored: bounds the
// memory of a request and lets the worker parse ahead while the main thread stores.
const WINDOW_CHUNKS = 8;

/**
 * ParsePool parses Prometheus text bodies on worker threads, so the event loop only moves bytes
 * and stores batches. Each worker numbers series keys in its own dictionary; the pool keeps a
 * KeyMirror per worker to resolve those numbers. Safe for any number of concurrent bodies (each
 * goes to the worker with the fewest bodies in progress). A worker that dies fails only the bodies
 * it was parsing (they answer 500; rows stored before stay stored); the next body starts a new
 * one. After three workers died without ever answering, `available` turns false and callers parse
 * on the main thread instead.
 */
export class ParsePool {
  readonly #o: ParsePoolOptions;
  readonly #slots: WorkerSlot[] = [];
  #nextJob = 1;
  #deadStarts = 0;
  #closed = false;
  // Why the next worker would start (for the started counter): set when one stops or dies.
  #nextReason = 'first';

  constructor(o: ParsePoolOptions) {
    if (!(Number.isInteger(o.workers) && o.workers >= 1)) throw new RangeError(`a parse pool needs at least one worker; got ${o.workers}`);
    this.#o = o;
  }

  /** available is false once workers cannot start (see the class comment) or after close(). */
  get available(): boolean {
    return !this.#closed && this.#deadStarts < 3;
  }

  /**
   * parsePrometheus decodes a Prometheus text body (/api/v1/import/prometheus), parses it on a
   * worker and delivers keyed batches in input order through o.onBatch. Resolves with the summary
   * once every batch was stored; rejects with the body's error (decoding, size limit, client
   * abort), the first onBatch error, or the worker's failure.
   */
  async parsePrometheus(source: common.ByteSource, o: PoolParseOptions): Promise<common.StreamSummary> {
    let body = common.decodeBody(source, o.contentEncoding);
    if (o.maxDecodedBytes) body = common.limitBytes(body, o.maxDecodedBytes, 'decompressed request body');
    const slot = this.#pick();
    const job = new PoolJob(this.#nextJob++, slot, o.onBatch, o.metadata?.sink);
    slot.jobs.set(job.id, job);
    try {
      for await (const chunk of body) {
        await job.ready();
        job.send({ t: 'chunk', job: job.id, data: chunk, now: o.now(), metadataTenant: o.metadata?.tenantKey });
      }
      job.send({ t: 'end', job: job.id, now: o.now() });
      return await job.result;
    } catch (err) {
      job.fail(err as Error);
      throw err;
    } finally {
      slot.jobs.delete(job.id);
      if (slot.retiring && slot.jobs.size === 0) this.#stop(slot);
    }
  }

  /** close stops every worker; bodies in progress fail. */
  async close(): Promise<void> {
    this.#closed = true;
    await Promise.all(this.#slots.splice(0).map((s) => s.worker.terminate()));
  }

  // pick returns the worker with the fewest bodies in progress, starting one while below the limit.
  #pick(): WorkerSlot {
    if (this.#closed) throw new Error('the parse pool is closed');
    let best: WorkerSlot | undefined;
    for (const s of this.#slots) if (!s.retiring && (best === undefined || s.jobs.size < best.jobs.size)) best = s;
    const active = this.#slots.filter((s) => !s.retiring).length;
    if (best !== undefined && (best.jobs.size === 0 || active >= this.#o.workers)) return best;
    return this.#start();
  }

  #start(): WorkerSlot {
    const reason = this.#nextReason;
    this.#nextReason = 'more';
    const worker = new Worker(this.#o.workerUrl ?? new URL('./parse-worker.ts', import.meta.url), {
      workerData: { batchSize: this.#o.batchSize ?? common.DEFAULT_BATCH_SIZE } satisfies WorkerConfig,
      // Parsing allocates mostly short-lived strings: a small young generation keeps RSS down.
      resourceLimits: { maxYoungGenerationSizeMb: 8 },
    });
    worker.unref();
    const slot = new WorkerSlot(worker);
    workersStarted.inc({ reason });
    worker.on('message', (m: FromWorker) => {
      slot.answered = true;
      if (m.t === 'batch') {
        if (m.newKeys !== undefined) slot.mirror.add(m.newKeys);
        if (m.keyBytes > this.#o.keyBytesPerWorker) this.#retire(slot);
      }
      slot.jobs.get(m.job)?.receive(m);
    });
    worker.on('error', (err) => this.#o.logger.error({ err }, 'parse worker failed'));
    worker.on('exit', (code) => {
      const i = this.#slots.indexOf(slot);
      if (i >= 0) this.#slots.splice(i, 1);
      if (!slot.stopped) this.#nextReason = 'died';
      if (!slot.answered && !slot.stopped && ++this.#deadStarts >= 3) this.#o.logger.error({ code }, 'parse workers cannot start; parsing on the main thread instead');
      for (const j of slot.jobs.values()) j.fail(new Error(`parse worker exited with code ${code}`));
    });
    this.#slots.push(slot);
    return slot;
  }

  #retire(slot: WorkerSlot): void {
    if (slot.retiring) return;
    slot.retiring = true;
    this.#nextReason = 'replaced';
    if (slot.jobs.size === 0) this.#stop(slot);
  }

  #stop(slot: WorkerSlot): void {
    slot.stopped = true;
    const i = this.#slots.indexOf(slot);
    if (i >= 0) this.#slots.splice(i, 1);
    void slot.worker.terminate();
  }
}

/** WorkerSlot is one worker with its key mirror and the bodies it parses. */
class WorkerSlot {
  readonly worker: Worker;
  readonly mirror = new KeyMirror();
  readonly jobs = new Map<number, PoolJob>();
  answered = false;
  retiring = false;
  stopped = false;

  constructor(worker: Worker) {
    this.worker = worker;
  }
}

/**
 * PoolJob is the main thread's side of one body: it sends chunks within the window and stores the
 * worker's batches one after another.
 */
class PoolJob {
  readonly id: number;
  readonly #slot: WorkerSlot;
  readonly #onBatch: (b: common.KeyedColumns) => Promise<void>;
  readonly #onMetadata: common.MetadataSink | undefined;
  readonly result: Promise<common.StreamSummary>;
  #resolve!: (s: common.StreamSummary) => void;
  #reject!: (e: Error) => void;
  #chain: Promise<void> = Promise.resolve();
  #inflight = 0;
  #wake: (() => void) | undefined;
  #rows = 0;
  #failed: Error | undefined;

  constructor(id: number, slot: WorkerSlot, onBatch: (b: common.KeyedColumns) => Promise<void>, onMetadata: common.MetadataSink | undefined) {
    this.id = id;
    this.#slot = slot;
    this.#onBatch = onBatch;
    this.#onMetadata = onMetadata;
    this.result = new Promise((resolve, reject) => {
      this.#resolve = resolve;
      this.#reject = reject;
    });
    this.result.catch(() => undefined); // observed by parsePrometheus; never an unhandled rejection
  }

  /** ready waits until another chunk fits in the window; throws the job's failure. */
  async ready(): Promise<void> {
    while (this.#inflight >= WINDOW_CHUNKS && this.#failed === undefined) await new Promise<void>((r) => (this.#wake = r));
    if (this.#failed !== undefined) throw this.#failed;
  }

  /** send passes a chunk (copied: a Buffer may share its memory with others) or the end of the body. */
  send(m: ToWorker): void {
    if (this.#failed !== undefined) return;
    if (m.t !== 'chunk') {
      this.#slot.worker.postMessage(m);
      return;
    }
    this.#inflight++;
    const data = new Uint8Array(m.data.length);
    data.set(m.data);
    this.#slot.worker.postMessage({ ...m, data }, [data.buffer]);
  }

  receive(m: FromWorker): void {
    switch (m.t) {
      case 'batch': {
        const b = common.KeyedColumns.of(this.#slot.mirror.table, m.keys, m.timestamps, m.values, m.length);
        this.#then(async () => {
          await this.#onBatch(b);
          this.#rows += b.length;
        });
        break;
      }
      case 'chunkDone':
        this.#then(() => {
          this.#metadata(m.metadata);
          this.#inflight--;
          this.#poke();
        });
        break;
      case 'done':
        this.#then(() => {
          this.#metadata(m.metadata);
          this.#resolve({ rows: this.#rows, lines: m.lines, errors: toSummary(m.errors) });
        });
        break;
      case 'failed':
        this.fail(new Error(m.message));
        break;
    }
  }

  #metadata(us: readonly common.MetadataUpdate[]): void {
    const sink = this.#onMetadata;
    if (sink !== undefined) for (const u of us) sink(u);
  }

  // then runs step after the previous ones, unless the job failed meanwhile.
  #then(step: () => void | Promise<void>): void {
    this.#chain = this.#chain.then(() => (this.#failed === undefined ? step() : undefined)).catch((err: unknown) => this.fail(err as Error));
  }

  /** fail ends the job with err: the worker forgets it and later batches are not stored. */
  fail(err: Error): void {
    if (this.#failed !== undefined) return;
    this.#failed = err;
    this.#slot.worker.postMessage({ t: 'drop', job: this.id } satisfies ToWorker);
    this.#reject(err);
    this.#poke();
  }

  #poke(): void {
    const w = this.#wake;
    this.#wake = undefined;
    w?.();
  }
}

function toSummary(e: { count: number; reason?: string; line?: number }): common.ErrorSummary {
  const s = new common.ErrorSummary();
  if (e.count > 0) {
    s.add(e.reason ?? 'unknown error', e.line === undefined ? {} : { line: e.line });
    s.count = e.count;
  }
  return s;
}
