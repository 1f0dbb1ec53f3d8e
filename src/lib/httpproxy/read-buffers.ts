/**
 * The smallest read buffer freed by ReadBufferRelease. Node's Buffer pool slabs are Buffer.poolSize
 * (8 KiB) and shared by unrelated Buffers, so only larger buffers can be a chunk's own socket read.
 */
const MIN_RELEASED_BYTES = 16 * 1024;

interface Entry {
  readonly buffer: ArrayBuffer;
  /** seq is the number of the last write that holds a view of buffer. */
  seq: number;
}

/**
 * ReadBufferRelease frees the socket read buffers that a response's body chunks are views of, as
 * soon as the client socket has taken every view of a buffer and the HTTP parser has moved past it,
 * instead of leaving them to V8's garbage collector.
 *
 * Why: undici hands each body chunk over as a view of the backend socket's read buffer (a fresh
 * ArrayBuffer of up to 64 KiB per read). A relayed chunk is written to the client while its request
 * is in flight, which under load spans scavenges, so the buffers were promoted and only a full
 * mark-compact, started when 64 MiB of such external memory had piled up in a thread, freed them:
 * peak RSS of hundreds of MiB for a proxy whose live data is the chunks in flight. Detached here
 * (ArrayBuffer.prototype.transfer(0)), their memory goes back to malloc at once and the next read
 * reuses it, so a thread's read buffers are bounded by the chunks in flight (at most the response
 * window per request, plus one read).
 *
 * Contract (the caller, forward.ts): `chunk` for every body chunk in arrival order; every chunk is
 * then written to the client in that order, in writes numbered by `nextWrite`; `written(seq)` when
 * the write numbered seq completed without error (every earlier one has then completed too, as a
 * stream writes in order); `ended()` once the parser reported the end of the response and every
 * write completed ('finish'). A failed write or an aborted response calls `abandon()`: the buffers
 * still held are left to the garbage collector, since the socket may still use them.
 *
 * A buffer is never freed while the parser may hold more of it: after a pause, undici keeps the
 * unparsed rest of the current read as a view and parses it on resume. The newest buffer is
 * therefore kept until a chunk of another buffer arrives (undici reads a new one only after it has
 * parsed all of the previous one) or the response has ended.
 */
export class ReadBufferRelease {
  // Buffers with views queued or being written, oldest first; the last may be `#parsing`.
  readonly #entries: Entry[] = [];
  #parsing: ArrayBuffer | undefined;
  #nextWrite = 1;
  #written = 0;
  #abandoned = false;

  /** nextWrite is the number of the next write to the client (writes are numbered 1, 2, …). */
  get nextWrite(): number {
    return this.#nextWrite;
  }

  /** chunk records a body chunk that the write numbered `nextWrite` (or a later one) will carry. */
  chunk(chunk: Buffer): void {
    if (this.#abandoned) return;
    const buffer = chunk.buffer;
    if (!(buffer instanceof ArrayBuffer) || buffer.byteLength < MIN_RELEASED_BYTES) return;
    const last = this.#entries.at(-1);
    if (last !== undefined && last.buffer === buffer) {
      last.seq = this.#nextWrite;
      return;
    }
    const previous = this.#parsing;
    this.#parsing = buffer;
    this.#entries.push({ buffer, seq: this.#nextWrite });
    // The parser has moved on: the previous buffer goes once its writes have completed.
    if (previous !== undefined) this.#release();
  }

  /** wrote counts a write to the client handed out (its number was nextWrite). */
  wrote(): number {
    return this.#nextWrite++;
  }

  /** written: the write numbered seq (and every earlier one) completed without error. */
  written(seq: number): void {
    if (this.#abandoned) return;
    if (seq > this.#written) this.#written = seq;
    this.#release();
  }

  /** ended: the response ended and every write completed; the parser holds none of its buffers (a listener: bound). */
  readonly ended = (): void => {
    if (this.#abandoned) return;
    this.#parsing = undefined;
    this.#written = this.#nextWrite - 1;
    this.#release();
  };

  /** abandon leaves every buffer still held to the garbage collector. */
  abandon(): void {
    this.#abandoned = true;
    this.#entries.length = 0;
    this.#parsing = undefined;
  }

  /** holds reports whether any buffer waits to be freed (for callers that skip work otherwise). */
  get holds(): boolean {
    return this.#entries.length > 0;
  }

  #release(): void {
    const e = this.#entries;
    let n = 0;
    while (n < e.length && e[n]!.seq <= this.#written && e[n]!.buffer !== this.#parsing) n++;
    if (n === 0) return;
    for (const { buffer } of e.splice(0, n)) free(buffer);
  }
}

// transfer(0) detaches the buffer and frees its memory; views of it read as empty from then on. A
// buffer its creator made non-detachable throws: the garbage collector frees that one as before.
function free(buffer: ArrayBuffer): void {
  if (buffer.detached) return;
  try {
    buffer.transfer(0);
  } catch {
    // not detachable
  }
}
