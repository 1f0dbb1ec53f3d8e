import v8 from 'node:v8';
import vm from 'node:vm';

/** GcOptions are what V8's gc() extension takes. */
export interface GcOptions {
  readonly type: 'minor' | 'major';
  readonly execution: 'sync' | 'async';
  /** flavor 'last-resort' also shrinks the heap's spaces (the young generation above all). */
  readonly flavor?: 'regular' | 'last-resort';
}

/** Gc runs a garbage collection. */
export type Gc = (o: GcOptions) => void;

/**
 * exposeGc returns V8's gc(): the global one when the process was started with --expose-gc (the
 * tsdb binaries' tuning, src/lib/process/tuning.ts), else a fresh context's, with the flag set at
 * run time. Creating that context cost ~6% of a start's CPU. Undefined when the runtime refuses
 * (then callers simply collect nothing themselves).
 */
export function exposeGc(): Gc | undefined {
  const global: unknown = (globalThis as { gc?: unknown }).gc;
  if (typeof global === 'function') return global as Gc;
  try {
    v8.setFlagsFromString('--expose-gc');
    const gc: unknown = vm.runInNewContext('gc');
    return typeof gc === 'function' ? (gc as Gc) : undefined;
  } catch {
    return undefined;
  }
}

/** DEFAULT_BODY_BYTES_PER_COLLECTION is how many request body bytes pass between two collections. */
export const DEFAULT_BODY_BYTES_PER_COLLECTION = 8 * 2 ** 20;

/**
 * YoungGarbage runs a young-generation collection after every `everyBytes` of request bodies.
 * Node reads a socket into a fresh 64 KiB buffer each time; on an ingestion path that allocates
 * few JS objects per byte, the young generation fills so slowly that those buffers (memory
 * outside V8's heap) pile up by the tens of MiB until V8's external-memory limit forces a full
 * collection, and the allocator keeps the peak for good. A collection of the nearly empty young
 * generation costs well under a millisecond and frees them at once. Not thread-safe (one per
 * event loop).
 */
export class YoungGarbage {
  readonly #gc: Gc;
  readonly #everyBytes: number;
  #pending = 0;
  /** collections counts the collections run. */
  collections = 0;

  constructor(gc: Gc, everyBytes = DEFAULT_BODY_BYTES_PER_COLLECTION) {
    if (!(everyBytes > 0)) throw new RangeError(`bytes between collections must be positive; got ${everyBytes}`);
    this.#gc = gc;
    this.#everyBytes = everyBytes;
  }

  /** note records bytes of a request body read; it collects once enough went by. */
  note(bytes: number): void {
    if (!(bytes > 0)) return;
    this.#pending += bytes;
    if (this.#pending < this.#everyBytes) return;
    this.#pending = 0;
    this.collections++;
    this.#gc({ type: 'minor', execution: 'sync' });
  }
}
