// Entry of the storage's background worker thread: runs flush and merge requests from the main
// thread (background/runner.ts) so that encoding, compression and fsyncs do not compete with
// ingestion and queries for the event loop.

import { parentPort } from 'node:worker_threads';
import { LruCache } from '../common/lru-cache.ts';
import type { BlockHeaders } from '../part/part-format.ts';
import { type IndexFlushRequest, type IndexMergeRequest, runIndexFlush, runIndexMerge } from '../index/index-tasks.ts';
import { type FlushRequest, type MergeRequest, runFlush, runMerge } from './tasks.ts';

/** WorkerMessage is a request from the main thread. */
export type WorkerMessage =
  | { readonly type: 'flush'; readonly id: number; readonly req: FlushRequest }
  | { readonly type: 'merge'; readonly id: number; readonly req: MergeRequest }
  | { readonly type: 'indexFlush'; readonly id: number; readonly req: IndexFlushRequest }
  | { readonly type: 'indexMerge'; readonly id: number; readonly req: IndexMergeRequest }
  | { readonly type: 'abort'; readonly id: number };

/** WorkerReply answers one request. */
export type WorkerReply = { readonly id: number; readonly ok: true; readonly result: unknown } | { readonly id: number; readonly ok: false; readonly error: string };

const port = parentPort;
if (port) {
  const headers = new LruCache<BlockHeaders>(16 * 2 ** 20);
  const indexBlocks = new LruCache<string[]>(4 * 2 ** 20);
  const running = new Map<number, AbortController>();
  // Flushes have priority: a merge waits at its next yield point while any flush runs, because
  // the write path is held back (backpressure) when flushes fall behind, merges are not urgent.
  let flushes = 0;
  let flushesDone: { promise: Promise<void>; resolve: () => void } | undefined;
  const pause = async (): Promise<void> => {
    while (flushes > 0) await (flushesDone ??= Promise.withResolvers<void>()).promise;
  };
  const flush = async (req: FlushRequest, signal: AbortSignal): Promise<unknown> => {
    flushes++;
    try {
      return await runFlush(req, signal);
    } finally {
      if (--flushes === 0 && flushesDone) {
        flushesDone.resolve();
        flushesDone = undefined;
      }
    }
  };
  const run = (msg: Exclude<WorkerMessage, { type: 'abort' }>, signal: AbortSignal): Promise<unknown> => {
    switch (msg.type) {
      case 'flush':
        return flush(msg.req, signal);
      case 'merge':
        return runMerge(msg.req, signal, headers, pause);
      case 'indexFlush':
        return runIndexFlush(msg.req);
      case 'indexMerge':
        return runIndexMerge(msg.req, signal, indexBlocks);
    }
  };
  port.on('message', (msg: WorkerMessage) => {
    if (msg.type === 'abort') {
      running.get(msg.id)?.abort(new Error('aborted'));
      return;
    }
    const ac = new AbortController();
    running.set(msg.id, ac);
    run(msg, ac.signal)
      .then(
        (result) => port.postMessage({ id: msg.id, ok: true, result } satisfies WorkerReply),
        (err: unknown) => port.postMessage({ id: msg.id, ok: false, error: err instanceof Error ? err.message : String(err) } satisfies WorkerReply),
      )
      .finally(() => running.delete(msg.id));
  });
}
