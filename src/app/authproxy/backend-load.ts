/**
 * BackendLoad is a backend's requests in flight and until when it is skipped after a network
 * failure, in a SharedArrayBuffer so that every thread of the proxy balances on the same figures.
 * brokenUntilMs is a plain Float64 cell: a reader racing a writer sees the old or the new time
 * (aligned 8-byte accesses do not tear on the platforms Node supports), either of which is valid.
 */
export class BackendLoad {
  readonly buffer: SharedArrayBuffer;
  readonly #count: Int32Array;
  readonly #until: Float64Array;

  constructor(buffer: SharedArrayBuffer = new SharedArrayBuffer(16)) {
    if (buffer.byteLength < 16) throw new RangeError(`cannot use a ${buffer.byteLength}-byte buffer as a backend's load: it needs 16 bytes`);
    this.buffer = buffer;
    this.#count = new Int32Array(buffer, 0, 1);
    this.#until = new Float64Array(buffer, 8, 1);
  }

  /** inFlight is the number of requests sent to the backend and not yet finished, by all threads. */
  get inFlight(): number {
    return Atomics.load(this.#count, 0);
  }

  /** brokenUntilMs: the backend is skipped before this time (ms since the epoch; 0 = healthy). */
  get brokenUntilMs(): number {
    return this.#until[0]!;
  }

  begin(): void {
    Atomics.add(this.#count, 0, 1);
  }

  end(): void {
    Atomics.sub(this.#count, 0, 1);
  }

  markBroken(untilMs: number): void {
    this.#until[0] = untilMs;
  }
}
