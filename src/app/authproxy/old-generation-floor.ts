// Imported by the binary before it re-executes itself (src/cmd/authproxy.ts): no imports.

const MIB = 1024 * 1024;
/** The floor per thread on a machine with room for it (bench/RESULTS.md, "an old-generation floor per thread"). */
const MAX_FLOOR_MIB = 128;
/** Below this V8's own limit (about 1.5× the ~22 MiB a proxy thread keeps live) is as large: no flag. */
const MIN_USEFUL_FLOOR_MIB = 32;
/** All threads' floors together take at most this share of the process's memory. */
const MEMORY_SHARE = 1 / 16;

/**
 * oldGenerationFloorMiB is the V8 old-generation size (--initial-old-space-size, MiB) below which a
 * proxy thread does not start a full collection for its own growth: min(128 MiB, 1/16 of systemBytes
 * split between threads ≥ 1), or undefined when that is too small to matter.
 *
 * Why: V8 sets the old-generation limit from the live heap (~22 MiB per proxy thread), while a
 * proxied request's objects outlive the young generation (they live as long as the response, hundreds
 * of ms under load) and are promoted. The old generation then reaches its limit every few hundred ms
 * and each full collection marks the whole live heap. The floor trades at most floor − live MiB of
 * garbage per thread for far fewer full collections; collections triggered by external memory (socket
 * buffers) are unaffected.
 */
export function oldGenerationFloorMiB(systemBytes: number, threads: number): number | undefined {
  const share = Math.floor((systemBytes * MEMORY_SHARE) / threads / MIB);
  const floor = Math.min(MAX_FLOOR_MIB, share);
  return floor >= MIN_USEFUL_FLOOR_MIB ? floor : undefined;
}
