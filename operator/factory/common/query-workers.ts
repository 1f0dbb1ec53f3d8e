// -search.queryWorkers for the containers that evaluate queries (tsdb single, tsdb-select).
import type { Resources } from '../../api/common.ts';

/**
 * queryWorkersFlag sizes the query worker pool from the container's CPU limit: one worker per
 * whole CPU of the limit beyond the first, which the event loop keeps (none under two: a worker
 * beside the event loop on one CPU only adds thread hops; one with two) — the binary's own rule
 * for -1 (src/lib/querypool/sizing.ts queryPoolSize, without its memory cap), stated in the Pod
 * spec so that it follows the limit the operator set rather than what the runtime can read of
 * the cgroup. Without a CPU limit the flag is left to the binary. extraArgs still override it.
 */
export function queryWorkersFlag(resources: Resources | undefined): Record<string, string | undefined> {
  const limit = resources?.limits?.['cpu'];
  if (limit === undefined) return {};
  const cpus = Math.floor(cpuQuantity(limit));
  return { 'search.queryWorkers': String(cpus >= 2 ? cpus - 1 : 0) };
}

// A Kubernetes quantity (the CRD's QUANTITY_PATTERN): a decimal number with a binary (Ki…Ei) or
// decimal (n…E) suffix or an exponent.
const QUANTITY = /^([+-]?(?:\d+(?:\.\d*)?|\.\d+))(?:(Ki|Mi|Gi|Ti|Pi|Ei)|([numkMGTPE])|[eE]([+-]?(?:\d+(?:\.\d*)?|\.\d+)))?$/;
const BINARY: Readonly<Record<string, number>> = { Ki: 2 ** 10, Mi: 2 ** 20, Gi: 2 ** 30, Ti: 2 ** 40, Pi: 2 ** 50, Ei: 2 ** 60 };
const DECIMAL: Readonly<Record<string, number>> = { n: 1e-9, u: 1e-6, m: 1e-3, k: 1e3, M: 1e6, G: 1e9, T: 1e12, P: 1e15, E: 1e18 };

/** cpuQuantity reads a CPU quantity ("500m", "2", 4, "1.5") as a number of CPUs. */
export function cpuQuantity(q: string | number): number {
  if (typeof q === 'number') return q;
  const m = QUANTITY.exec(q);
  if (m === null) throw new Error(`cannot read the CPU quantity "${q}": it is not a Kubernetes quantity (e.g. 500m, 2)`);
  const mult = m[2] !== undefined ? BINARY[m[2]]! : m[3] !== undefined ? DECIMAL[m[3]]! : m[4] !== undefined ? 10 ** Number(m[4]) : 1;
  return Number(m[1]) * mult;
}
