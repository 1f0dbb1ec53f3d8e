// Entry of the storage's background worker thread: runs flush and merge requests from the main
// thread (background/runner.ts) so that encoding and compression do not compete with ingestion
// and queries for the event loop.

import { parentPort } from 'node:worker_threads';
import { LruCache } from '../lru-cache.ts';
import type { BlockHeaders } from '../part-format.ts';
import { type FlushRequest, type MergeRequest, runFlush, runMerge } from './tasks.ts';

/** WorkerMessage is a request from the main thread. */
export type WorkerMessage =
  | { readonly type: 'flush'; readonly id: number; readonly req: FlushRequest }
  | { readonly type: 'merge'; readonly id: number; readonly req: MergeRequest }
  | { readonly type: 'abort'; readonly id: number };

/** WorkerReply answers one request. */
export type WorkerReply = { readonly id: number; readonly ok: true; readonly result: unknown } | { readonly id: number; readonly ok: false; readonly error: string };

const port = parentPort;
if (port) {
  const cache = new LruCache<BlockHeaders>(16 * 2 ** 20);
  const running = new Map<number, AbortController>();
  port.on('message', (msg: WorkerMessage) => {
    if (msg.type === 'abort') {
      running.get(msg.id)?.abort(new Error('merge aborted'));
      return;
    }
    const ac = new AbortController();
    running.set(msg.id, ac);
    const work = msg.type === 'flush' ? runFlush(msg.req, ac.signal) : runMerge(msg.req, ac.signal, cache);
    work.then(
      (result) => port.postMessage({ id: msg.id, ok: true, result } satisfies WorkerReply),
      (err: unknown) => port.postMessage({ id: msg.id, ok: false, error: err instanceof Error ? err.message : String(err) } satisfies WorkerReply),
    ).finally(() => running.delete(msg.id));
  });
}
