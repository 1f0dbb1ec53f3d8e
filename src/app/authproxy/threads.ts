import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';
import { canShareListenPort } from '../../lib/httpserver/index.ts';
import type { Logger } from '../../lib/logger/index.ts';
import { applyMetricsDelta, beforeScrape, writeMetrics } from '../../lib/metrics/index.ts';
import type { Component } from '../../lib/process/index.ts';
import type { AuthProxyComponent } from './component.ts';
import type { FromThread, ThreadData, ToThread } from './thread-messages.ts';

/** ThreadsOptions start the auth proxy's further threads beside the first (the caller's). */
export interface ThreadsOptions {
  /** count is the number of further threads (-threads minus the first). */
  readonly count: number;
  /** first is the first thread's running proxy: its config, limits and reloads are shared. */
  readonly first: AuthProxyComponent;
  /** port is the port the first thread's server bound. */
  readonly port: number;
  /** argv is the command line (flags) every thread parses. */
  readonly argv: readonly string[];
  /** bufferBudgetBytes is each thread's share of the response-buffer budget. */
  readonly bufferBudgetBytes: number;
  readonly logger: Logger;
}

/**
 * threadCount resolves -threads: 0 means one thread per CPU the process may run on (its affinity
 * mask, so a proxy pinned to one core runs one thread); threads need SO_REUSEPORT (Linux).
 */
export function threadCount(flag: number): number {
  if (!canShareListenPort()) return 1;
  return flag === 0 ? availableParallelism() : flag;
}

const ENTRY = new URL('./thread-main.ts', import.meta.url);
// A thread that does not hand over its metrics within this time is left out of one scrape; one that
// does not confirm a new config within it does not hold up the reload.
const REPLY_TIMEOUT_MS = 2000;

interface Running {
  worker: Worker;
  ready: boolean;
}

/**
 * ProxyThreads runs further threads of the auth proxy, each with its own event loop and HTTP server
 * on the first thread's port (the kernel spreads connections over all threads' SO_REUSEPORT
 * sockets). They count in the first thread's limiters and backend loads (shared memory), serve the
 * first thread's config (sent on every reload), ask it to reload on /-/reload and to render /metrics,
 * and hand it their counters and summary observations every second and before each scrape. A thread
 * that dies (a bug: nothing a client sends may end one) ends the process, as a crash of a
 * single-threaded proxy would: the slots its requests held in the shared limits would otherwise stay
 * taken for good.
 */
export class ProxyThreads implements Component {
  readonly name = 'authproxy threads';
  readonly #o: ThreadsOptions;
  readonly #threads: Running[] = [];
  readonly #pending = new Map<number, () => void>();
  #nextId = 1;
  #closing = false;

  private constructor(o: ThreadsOptions) {
    this.#o = o;
  }

  /** start starts the threads and resolves when every one listens. */
  static async start(o: ThreadsOptions): Promise<ProxyThreads> {
    const t = new ProxyThreads(o);
    o.first.onConfig((config) => t.#askAll((id) => ({ type: 'config', id, config })));
    beforeScrape(() => t.#askAll((id) => ({ type: 'collect', id })));
    await Promise.all(Array.from({ length: o.count }, (_, i) => t.#spawn(i)));
    return t;
  }

  beginShutdownDelay(): void {
    this.#broadcast({ type: 'shutdown-delay' });
  }

  /** closeServers closes every thread's server (in-flight requests finish) and ends the threads. */
  async closeServers(): Promise<void> {
    this.#closing = true;
    await Promise.all(this.#threads.map((t) => new Promise<void>((resolve) => {
      if (t.worker.threadId < 0) {
        resolve();
        return;
      }
      t.worker.once('exit', () => resolve());
      t.worker.postMessage({ type: 'close' } satisfies ToThread);
    })));
  }

  async stop(): Promise<void> {
    if (!this.#closing) await this.closeServers();
  }

  #spawn(index: number): Promise<void> {
    const config = this.#o.first.config();
    if (config === undefined) throw new Error('cannot start auth proxy threads before the first thread has a config');
    const data: ThreadData = {
      index, port: this.#o.port, globalLimiter: this.#o.first.proxy.globalLimiter, config, bufferBudgetBytes: this.#o.bufferBudgetBytes,
    };
    const worker = new Worker(ENTRY, { argv: [...this.#o.argv], workerData: data, name: `authproxy-${index + 1}` });
    const t: Running = { worker, ready: false };
    const startedWith = config;
    this.#threads[index] = t;
    return new Promise<void>((resolve, reject) => {
      worker.on('message', (m: FromThread) => {
        if (m.type === 'ready') {
          t.ready = true;
          // A reload while the thread started was not sent to it.
          const now = this.#o.first.config();
          if (now !== undefined && now !== startedWith) worker.postMessage({ type: 'config', id: 0, config: now } satisfies ToThread);
          resolve();
        } else {
          this.#onMessage(worker, m);
        }
      });
      worker.on('error', (err) => {
        this.#o.logger.error({ err }, `auth proxy thread ${index + 1} failed`);
        if (!t.ready) reject(new Error(`cannot start auth proxy thread ${index + 1}`, { cause: err }));
      });
      worker.on('exit', (code) => {
        if (!t.ready) {
          reject(new Error(`auth proxy thread ${index + 1} exited with code ${code} before it listened`));
          return;
        }
        if (this.#closing) return;
        this.#o.logger.fatal(`auth proxy thread ${index + 1} exited unexpectedly with code ${code}; exiting`);
        process.exit(1);
      });
    });
  }

  #onMessage(worker: Worker, m: FromThread): void {
    switch (m.type) {
      case 'delta':
        applyMetricsDelta(m.delta);
        if (m.id !== undefined) this.#pending.get(m.id)?.();
        return;
      case 'applied':
        this.#pending.get(m.id)?.();
        return;
      case 'scrape':
        writeMetrics().then(
          (text) => worker.postMessage({ type: 'scraped', id: m.id, text } satisfies ToThread),
          (err: unknown) => worker.postMessage({ type: 'scraped', id: m.id, error: (err as Error).message } satisfies ToThread),
        );
        return;
      case 'reload':
        void this.#o.first.reloadConfig().then((outcome) => worker.postMessage({ type: 'reloaded', id: m.id, outcome } satisfies ToThread));
        return;
      default:
        return;
    }
  }

  #broadcast(m: ToThread): void {
    for (const t of this.#threads) if (t.ready) t.worker.postMessage(m);
  }

  // askAll sends every ready thread a request and resolves when each has replied or timed out.
  #askAll(request: (id: number) => ToThread): Promise<void> {
    return Promise.all(this.#threads.filter((t) => t.ready).map((t) => new Promise<void>((resolve) => {
      const id = this.#nextId++;
      const finish = () => {
        clearTimeout(timer);
        this.#pending.delete(id);
        resolve();
      };
      const timer = setTimeout(finish, REPLY_TIMEOUT_MS);
      this.#pending.set(id, finish);
      t.worker.postMessage(request(id));
    }))).then(() => {});
  }
}
