// The memory a matrix answer is rendered into (matrixJson), kept for the next answer while
// queries keep coming. The launcher fixes glibc's mmap threshold at 64 KiB (process/tuning.ts),
// so a fresh answer buffer of several MiB is a fresh mapping whose every page faults when first
// written: r:rate at 10k series × 1,440 steps (an 8 MiB answer) took ~1,940 minor faults per
// request, 20–40 ms of its ~170 ms of CPU on the shared machine. One spare buffer, reused once the
// previous answer has been written out, takes none; it is dropped after IDLE_MS without a query so
// that an idle server (or the merge that follows a query burst) does not keep it resident.

/** The largest answer buffer kept for reuse; bigger answers get memory of their own every time. */
export const SPARE_MAX_BYTES = 32 << 20;
/** How long the spare stays without being taken before it is freed. */
export const IDLE_MS = 1_000;

let spare: Buffer | undefined;
let busy = false;
let idle: NodeJS.Timeout | undefined;

/**
 * takeAnswerBuffer returns memory for an answer of at most `bound` bytes: the spare when it is
 * free and large enough, else a fresh buffer, which becomes the spare when it may (no answer is
 * being written from the current spare, bound ≤ SPARE_MAX_BYTES). The caller must hand the
 * buffer (or a view of it) to answerSent once the response is done with it.
 */
export function takeAnswerBuffer(bound: number): Buffer {
  if (spare !== undefined && !busy && spare.length >= bound) {
    busy = true;
    clearTimeout(idle);
    return spare;
  }
  const fresh = Buffer.allocUnsafeSlow(bound);
  if (!busy && bound <= SPARE_MAX_BYTES) {
    if (spare !== undefined) free(spare);
    clearTimeout(idle);
    spare = fresh;
    busy = true;
  }
  return fresh;
}

/**
 * answerSent is told that the response holding body (memory from takeAnswerBuffer) is done:
 * written out when written is true, else abandoned (the client left; the socket may still hold
 * the memory, so it is neither reused nor freed here but left to the garbage collector). Written
 * memory other than the spare is freed at once rather than when a full collection finds it.
 */
export function answerSent(body: Buffer, written: boolean): void {
  if (spare !== undefined && body.buffer === spare.buffer) {
    busy = false;
    if (!written) {
      spare = undefined;
      return;
    }
    clearTimeout(idle);
    idle = setTimeout(dropIdleSpare, IDLE_MS);
    idle.unref();
    return;
  }
  if (written) free(body);
}

function dropIdleSpare(): void {
  if (busy || spare === undefined) return;
  free(spare);
  spare = undefined;
}

function free(b: Buffer): void {
  const memory = b.buffer;
  if (memory instanceof ArrayBuffer && !memory.detached) memory.transfer(0);
}
