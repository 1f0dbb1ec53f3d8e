// The Node flags and environment the tsdb binaries run with (tsdb, tsdb-storage, tsdb-insert,
// tsdb-select; docs/DECISIONS.md, "Memory of the tsdb process"), in one place: the binaries
// re-execute themselves into them (reexec.ts) and launchers start them so directly (tunedLaunch).
// Imported by the binaries before anything else: it must stay free of project imports but reexec.ts.
import type { ReexecOptions } from './reexec.ts';

/**
 * TSDB_HEAP_GROWING: the old generation may grow to twice what the last full collection left live
 * before the next one starts, instead of V8's dynamic factor (up to 4× when collections look
 * cheap). Between full collections the tsdb's old generation is mostly garbage (buffers promoted
 * by the small semi-space), so the factor sets how much of it is resident. 10k × 1,440 text load,
 * query set, export and merge, alternated with the default under load 10–18: peak RSS 295 → 259 MiB
 * at 100%, CPU not higher; 30% cut more (266 → 218, 276 → 222) but doubled the query set's CPU
 * (full collections every few MiB promoted). Node refuses it in NODE_OPTIONS: set at run time (v8Flags).
 */
export const TSDB_HEAP_GROWING = '--heap-growing-percent=100';

/**
 * TSDB_TUNING: a 4 MiB semi-space (V8's default young generation grows to 32 MiB per semi-space),
 * V8's gc() for the ingestion path's collections (exposeGc; without the flag it costs a context),
 * two malloc arenas and fixed mmap/trim thresholds, so freed request buffers and typed-array stores
 * go back to the kernel, and the old generation's growing factor (TSDB_HEAP_GROWING).
 * 8/16/32 MiB semi-spaces cut scavenges but not the query phases' CPU at 10k series and raise the
 * peak RSS of a bench run by 10–40 MiB; V8 sizes the young generation when the heap is set up, so
 * v8.setFlagsFromString cannot enlarge it for queries later (docs/DECISIONS.md, "V8 heap flags").
 * STRATA_TSDB_NO_REEXEC=1 runs a binary as started.
 */
export const TSDB_TUNING: ReexecOptions = {
  keyFlag: '--max-semi-space-size',
  nodeFlags: ['--max-semi-space-size=4', '--expose-gc'],
  env: { MALLOC_ARENA_MAX: '2', MALLOC_MMAP_THRESHOLD_: '65536', MALLOC_TRIM_THRESHOLD_: '131072' },
  optOutVar: 'STRATA_TSDB_NO_REEXEC',
  v8Flags: [TSDB_HEAP_GROWING],
};

/**
 * AUTHPROXY_TUNING: the auth proxy's Node flags (src/cmd/authproxy.ts says why each) and malloc
 * settings. Every proxy thread mallocs its socket read buffers (64 KiB per read), so glibc's
 * per-thread arenas (up to 8 per core) and its dynamic mmap threshold (raised to the largest freed
 * mapping, up to 32 MiB) left freed buffers spread over arenas that are never trimmed: two arenas
 * and fixed thresholds (a 128 KiB mmap threshold keeps the 64 KiB reads in the arenas for reuse)
 * bound it. STRATA_AUTHPROXY_NO_REEXEC=1 runs the binary as started.
 */
export const AUTHPROXY_TUNING: ReexecOptions = {
  keyFlag: '--max-semi-space-size',
  nodeFlags: ['--max-semi-space-size=4', '--no-allocation-site-pretenuring'],
  env: { MALLOC_ARENA_MAX: '2', MALLOC_MMAP_THRESHOLD_: '131072', MALLOC_TRIM_THRESHOLD_: '131072' },
  optOutVar: 'STRATA_AUTHPROXY_NO_REEXEC',
};
