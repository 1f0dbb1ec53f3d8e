// Metric metadata (the HELP, TYPE and UNIT of a metric family) as ingestion formats carry it:
// Prometheus text `# HELP`/`# TYPE`/`# UNIT` lines, each giving one field, and the `metadata` of a
// remote-write request, giving all three at once.

/** MetricType is a metric family's type, as Prometheus' /api/v1/metadata names it. */
export type MetricType = 'counter' | 'gauge' | 'histogram' | 'gaugehistogram' | 'summary' | 'info' | 'stateset' | 'unknown';

/** METRIC_TYPES lists every MetricType. */
export const METRIC_TYPES: readonly MetricType[] = ['counter', 'gauge', 'histogram', 'gaugehistogram', 'summary', 'info', 'stateset', 'unknown'];

/**
 * MetadataUpdate is what one piece of input says about a metric family: the fields it gives (a
 * text `# HELP` line gives only `help`; remote write gives all three, empty strings included).
 */
export interface MetadataUpdate {
  readonly metric: string;
  readonly type?: MetricType;
  readonly help?: string;
  readonly unit?: string;
}

/** MetadataSink receives the metadata a parser finds, in input order. */
export type MetadataSink = (u: MetadataUpdate) => void;

/**
 * RecentLines remembers which metadata lines were handed on lately, by a 53-bit hash of their
 * text, so a sender repeating its HELP and TYPE lines every scrape costs a hash per line instead
 * of decoding and parsing them: a line is handed on again only after windowMs. A changed line
 * hashes differently and is handed on at once; a line that changes back within the window (or,
 * rarely, collides with another) waits for the window to pass. Bounded by maxEntries (all are
 * forgotten when it fills). One per tenant: the lines of one tenant say nothing about another's.
 */
export class RecentLines {
  readonly windowMs: number;
  readonly #maxEntries: number;
  readonly #seen = new Map<number, number>();

  constructor(windowMs: number, maxEntries = 1 << 16) {
    this.windowMs = windowMs;
    this.#maxEntries = maxEntries;
  }

  /** fresh reports whether the line with this hash should be handed on at `now` (ms), and notes it if so. */
  fresh(hash: number, now: number): boolean {
    const at = this.#seen.get(hash);
    if (at !== undefined && now - at < this.windowMs && now >= at) return false;
    if (at === undefined && this.#seen.size >= this.#maxEntries) this.#seen.clear();
    this.#seen.set(hash, now);
    return true;
  }
}

// Two 32-bit FNV-1a style hashes with different primes, joined into 53 bits (a safe integer).
const H1 = 0x811c9dc5;
const H2 = 0x6a09e667;

/** hashBytes hashes b[start, end) for RecentLines. */
export function hashBytes(b: Uint8Array, start: number, end: number): number {
  let h1 = H1;
  let h2 = H2;
  for (let i = start; i < end; i++) {
    const c = b[i]!;
    h1 = Math.imul(h1 ^ c, 0x01000193);
    h2 = Math.imul(h2 ^ c, 0x5bd1e995);
  }
  return (h1 >>> 0) * 0x200000 + (h2 >>> 11);
}

/** hashText hashes the UTF-16 code units of s[start, end) for RecentLines. */
export function hashText(s: string, start: number, end: number): number {
  let h1 = H1;
  let h2 = H2;
  for (let i = start; i < end; i++) {
    const c = s.charCodeAt(i);
    h1 = Math.imul(h1 ^ c, 0x01000193);
    h2 = Math.imul(h2 ^ c, 0x5bd1e995);
  }
  return (h1 >>> 0) * 0x200000 + (h2 >>> 11);
}
