// Parse worker: a worker thread that parses Prometheus text bodies into keyed batches for the main
// thread (see parse-protocol.ts and parse-pool.ts). Its series-key dictionary lives as long as the
// worker: the pool retires a worker whose dictionary outgrew its budget, instead of renumbering.
import { parentPort, workerData } from 'node:worker_threads';
// The format folders, not protoparser/index.ts: a worker should load only what it runs.
import * as common from '../protoparser/common/index.ts';
import * as prometheus from '../protoparser/prometheus/index.ts';
import type { FromWorker, NewKeys, ToWorker, WorkerConfig } from './parse-protocol.ts';
import type { MetadataUpdate } from '../protoparser/common/index.ts';
import { RecentMetadata } from './recent-metadata.ts';

const port = parentPort;
if (port === null) throw new Error('parse-worker.ts must run as a worker thread');
const config = workerData as WorkerConfig;
// Never trimmed here (see above): renumbering would need the main thread's mirror to follow.
const keys = new common.SeriesKeyDictionary(Number.MAX_SAFE_INTEGER);
let sentKeys = 0;
// The worker's own memory of metadata lines it handed on (per tenant), as the main thread keeps one.
const recentMetadata = new RecentMetadata();

const post = (m: FromWorker, transfer: ArrayBuffer[] = []): void => port.postMessage(m, transfer);

// newKeys returns the keys numbered since the last batch message.
function newKeys(): NewKeys | undefined {
  const n = keys.size;
  if (n === sentKeys) return undefined;
  const t = keys.table;
  const from = sentKeys;
  sentKeys = n;
  return { from, rawKeys: t.rawKeys.slice(from, n), labels: t.labels.slice(from, n).map((ls) => ls.flatMap((l) => [l.name, l.value])) };
}

/** Job is one body being parsed: chunks queue up here until the stream pulls them. */
class Job {
  readonly id: number;
  readonly #queue: Uint8Array[] = [];
  #ended = false;
  #dropped = false;
  #wake: (() => void) | undefined;
  now = 0;
  /** metadata parsed and not sent yet (sent with the next chunkDone or done: at most a chunk's worth). */
  metadata: MetadataUpdate[] = [];
  /** capture takes the body's metadata lines, when the main thread asked for them. */
  readonly capture: prometheus.MetadataCapture | undefined;

  constructor(id: number, metadataTenant: string | undefined) {
    this.id = id;
    this.capture = metadataTenant === undefined ? undefined : new prometheus.MetadataCapture((u) => this.metadata.push(u), recentMetadata.for(metadataTenant));
  }

  push(data: Uint8Array, now: number): void {
    this.now = now;
    this.#queue.push(data);
    this.#poke();
  }

  end(now: number): void {
    this.now = now;
    this.#ended = true;
    this.#poke();
  }

  drop(): void {
    this.#dropped = true;
    this.#queue.length = 0;
    this.end(this.now);
  }

  get dropped(): boolean {
    return this.#dropped;
  }

  takeMetadata(): MetadataUpdate[] {
    const m = this.metadata;
    if (m.length > 0) this.metadata = [];
    return m;
  }

  #poke(): void {
    const w = this.#wake;
    this.#wake = undefined;
    w?.();
  }

  // source yields the chunks; pulling the next one means the previous one was parsed.
  async *source(): AsyncGenerator<Uint8Array> {
    let pulled = false;
    for (;;) {
      while (this.#queue.length === 0 && !this.#ended) await new Promise<void>((r) => (this.#wake = r));
      if (pulled && !this.#dropped) post({ t: 'chunkDone', job: this.id, metadata: this.takeMetadata() });
      const next = this.#queue.shift();
      if (next === undefined) return;
      pulled = true;
      yield next;
    }
  }
}

const jobs = new Map<number, Job>();

async function run(job: Job): Promise<void> {
  try {
    const sum = await prometheus.streamPrometheusKeyed(job.source(), {
      keys,
      batchSize: config.batchSize,
      now: () => job.now,
      metadata: job.capture,
      onBatch: (b) => {
        if (job.dropped) return;
        const k = b.keys.slice(0, b.length);
        const ts = b.timestamps.slice(0, b.length);
        const vs = b.values.slice(0, b.length);
        post({ t: 'batch', job: job.id, length: b.length, keys: k, timestamps: ts, values: vs, newKeys: newKeys(), keyBytes: keys.bytes }, [k.buffer, ts.buffer, vs.buffer]);
      },
    });
    const first = sum.errors.first;
    if (!job.dropped) post({ t: 'done', job: job.id, lines: sum.lines, errors: { count: sum.errors.count, ...(first ? { reason: first.reason, line: first.line } : {}) }, metadata: job.takeMetadata() });
  } catch (err) {
    if (!job.dropped) post({ t: 'failed', job: job.id, message: `cannot parse request body: ${(err as Error)?.message ?? String(err)}` });
  } finally {
    jobs.delete(job.id);
  }
}

port.on('message', (m: ToWorker) => {
  let job = jobs.get(m.job);
  if (m.t === 'drop') {
    job?.drop();
    return;
  }
  if (job === undefined) {
    // A job's first message is its first chunk (or, for an empty body, its end).
    job = new Job(m.job, m.t === 'chunk' ? m.metadataTenant : undefined);
    jobs.set(m.job, job);
    void run(job);
  }
  if (m.t === 'chunk') job.push(m.data, m.now);
  else job.end(m.now);
});
