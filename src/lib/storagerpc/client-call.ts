// One call from a client, start to end: the pooled connection, the per-call timeout, the abort
// signal (which also cancels the work on the node), metrics, and the answer's decoding.

import type { ByteReader, ByteWriter } from '../bytes/index.ts';
import { NodeUnavailableError } from '../storageapi/errors.ts';
import type { ClientConnection, Pending } from './client-connection.ts';
import { expectEnd, reader, RpcProtocolError } from './codec.ts';
import { readError } from './errors-codec.ts';
import { METHOD_NAMES, T_ERROR, T_RESULT } from './frame.ts';
import { clientMetrics } from './metrics.ts';

/** CallSpec describes one unary call. */
export interface CallSpec<T> {
  readonly method: number;
  /** build appends the arguments (synchronously, right before the frame is sent). */
  readonly build: (w: ByteWriter) => void;
  /** decode reads the RESULT body. */
  readonly decode: (r: ByteReader) => T;
  readonly timeoutMs: number;
  readonly signal?: AbortSignal;
  readonly sizeHint?: number;
}

/** errorReason names an error for the errors metric. */
export function errorReason(err: unknown, signal?: AbortSignal): string {
  if (signal?.aborted === true && err === signal.reason) return 'canceled';
  if (err instanceof NodeUnavailableError) return /within (its )?\d+ ms/.test(err.message) ? 'timeout' : 'unavailable';
  return 'remote';
}

/** Measurement counts one call and its outcome in the client metrics. */
export class Measurement {
  readonly #labels: { node: string; method: string };
  readonly #signal: AbortSignal | undefined;
  readonly #start = performance.now();
  #ended = false;

  constructor(node: string, method: number, signal: AbortSignal | undefined) {
    this.#labels = { node, method: METHOD_NAMES[method]! };
    this.#signal = signal;
    clientMetrics().requests.inc(this.#labels);
  }

  /** end records the duration, and the error when the call failed; only the first end counts. */
  end(err?: unknown): void {
    if (this.#ended) return;
    this.#ended = true;
    const m = clientMetrics();
    if (err !== undefined) m.errors.inc({ ...this.#labels, reason: errorReason(err, this.#signal) });
    m.duration.observe(this.#labels, (performance.now() - this.#start) / 1000);
  }
}

/** measure runs a call under a Measurement. */
export async function measure<T>(node: string, method: number, signal: AbortSignal | undefined, run: () => Promise<T>): Promise<T> {
  const m = new Measurement(node, method, signal);
  try {
    const v = await run();
    m.end();
    return v;
  } catch (err) {
    m.end(err);
    throw err;
  }
}

/**
 * raceAbort settles with p, or rejects with signal's reason as soon as it aborts (p then goes on
 * unobserved: dialing a connection is not worth cancelling, the pool keeps it).
 */
export function raceAbort<T>(p: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (signal === undefined) return p;
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    p.then(
      (v) => {
        signal.removeEventListener('abort', onAbort);
        resolve(v);
      },
      (err: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(err);
      },
    );
  });
}

/**
 * unaryCall sends one call on conn and resolves with its decoded RESULT. It rejects with what the
 * node sent (storage's error classes), with NodeUnavailableError when the connection breaks or no
 * answer comes within spec.timeoutMs (the call is then cancelled on the node), or with the
 * signal's reason when it aborts (likewise cancelled).
 */
export function unaryCall<T>(conn: ClientConnection, spec: CallSpec<T>): Promise<T> {
  const { signal } = spec;
  if (signal?.aborted === true) return Promise.reject(signal.reason);
  const what = METHOD_NAMES[spec.method]!;
  return new Promise<T>((resolve, reject) => {
    let id = 0;
    let timer: NodeJS.Timeout | undefined;
    const cleanup = () => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
    };
    const onAbort = () => {
      cleanup();
      conn.cancel(id);
      reject(signal!.reason);
    };
    const p: Pending = {
      onFrame(f) {
        cleanup();
        const r = reader(f.buf, `${what} answer`, f.bodyStart);
        if (f.type === T_ERROR) return reject(readError(r, conn.address));
        if (f.type !== T_RESULT) throw new RpcProtocolError(`a ${what} call got a SERIES frame`);
        const v = spec.decode(r);
        expectEnd(r);
        resolve(v);
      },
      onClose(err) {
        cleanup();
        reject(err);
      },
    };
    try {
      id = conn.startCall(spec.method, spec.timeoutMs, spec.build, p, spec.sizeHint);
    } catch (err) {
      reject(err);
      return;
    }
    const started = performance.now();
    timer = setTimeout(() => {
      cleanup();
      conn.cancel(id);
      const err = new NodeUnavailableError(conn.address, `storage node "${conn.address}" did not answer ${what} within ${spec.timeoutMs} ms`);
      reject(err);
      conn.timedOut(started);
    }, spec.timeoutMs);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
