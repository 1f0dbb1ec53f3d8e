import { NodeUnavailableError } from '../storageapi/index.ts';
import { timerMs } from '../timer/index.ts';

/** Timers are the timer functions the cluster code waits with (tests pass fake ones). */
export interface Timers {
  setTimeout(fn: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

export const REAL_TIMERS: Timers = {
  setTimeout: (fn, ms) => setTimeout(fn, timerMs(ms)),
  clearTimeout: (h) => clearTimeout(h as NodeJS.Timeout),
};

/**
 * callNode runs fn against storage node `node` with a signal that fires when the call takes
 * longer than timeoutMs or when parent aborts. It settles by then even if fn ignores the signal
 * (a frozen peer never answers): with a NodeUnavailableError on timeout, with parent's reason on
 * abort. A late outcome of fn is dropped.
 */
export function callNode<T>(node: string, what: string, timeoutMs: number, parent: AbortSignal | undefined, timers: Timers, fn: (signal: AbortSignal) => Promise<T>): Promise<T> {
  if (parent?.aborted === true) return Promise.reject(parent.reason);
  const ac = new AbortController();
  return new Promise<T>((resolve, reject) => {
    let settled = false;
    const finish = (): boolean => {
      if (settled) return false;
      settled = true;
      timers.clearTimeout(timer);
      parent?.removeEventListener('abort', onAbort);
      return true;
    };
    const onAbort = () => {
      if (!finish()) return;
      ac.abort(parent!.reason);
      reject(parent!.reason);
    };
    const timer = timers.setTimeout(() => {
      if (!finish()) return;
      const err = new NodeUnavailableError(node, `cannot ${what} on storage node ${node}: no answer within ${timeoutMs} ms`);
      ac.abort(err);
      reject(err);
    }, timeoutMs);
    parent?.addEventListener('abort', onAbort, { once: true });
    let p: Promise<T>;
    try {
      p = fn(ac.signal);
    } catch (err) {
      p = Promise.reject(err);
    }
    p.then(
      (v) => finish() && resolve(v),
      (err: unknown) => finish() && reject(err),
    );
  });
}

/**
 * iterateNode reads an async iterable from storage node `node`, allowing at most idleMs between
 * items (a stream may run long, but must keep moving); the same timeout and abort rules as
 * callNode apply to each step. The source's iterator is closed (without waiting) when the
 * consumer stops early or a step fails.
 */
export async function* iterateNode<T>(node: string, what: string, idleMs: number, parent: AbortSignal | undefined, timers: Timers, open: (signal: AbortSignal) => AsyncIterable<T>): AsyncGenerator<T> {
  const ac = new AbortController();
  const onAbort = () => ac.abort(parent!.reason);
  parent?.addEventListener('abort', onAbort, { once: true });
  const it = open(ac.signal)[Symbol.asyncIterator]();
  let done = false;
  try {
    for (;;) {
      const step = await callNode(node, what, idleMs, parent, timers, () => it.next());
      if (step.done === true) {
        done = true;
        return;
      }
      yield step.value;
    }
  } catch (err) {
    if (!ac.signal.aborted) ac.abort(err);
    throw err;
  } finally {
    parent?.removeEventListener('abort', onAbort);
    if (!done) void it.return?.()?.catch(() => {});
  }
}
