/**
 * runWorkers calls `fn` for every item with at most `concurrency` calls in flight. The first
 * failure aborts the signal given to the other calls, stops starting new ones, waits for the
 * running ones to settle, and is then thrown. An abort of `signal` is thrown as its reason.
 */
export async function runWorkers<T>(
  items: readonly T[],
  concurrency: number,
  fn: (item: T, signal: AbortSignal) => Promise<void>,
  signal?: AbortSignal,
): Promise<void> {
  if (!Number.isSafeInteger(concurrency) || concurrency < 1) {
    throw new RangeError(`concurrency must be a positive integer, got ${concurrency}`);
  }
  signal?.throwIfAborted();
  const ac = new AbortController();
  const inner = signal ? AbortSignal.any([signal, ac.signal]) : ac.signal;
  let next = 0;
  let firstError: { err: unknown } | undefined;
  const worker = async (): Promise<void> => {
    while (next < items.length && !inner.aborted) {
      const item = items[next++] as T;
      try {
        await fn(item, inner);
      } catch (err) {
        if (!firstError) {
          firstError = { err };
          ac.abort(err);
        }
        return;
      }
    }
  };
  const n = Math.min(concurrency, items.length);
  await Promise.all(Array.from({ length: n }, worker));
  // An outer abort is reported as such, not as whichever call noticed it first.
  signal?.throwIfAborted();
  if (firstError) throw firstError.err;
}
