import type { Tenant } from '../../lib/storageapi/index.ts';

// The queries a select node is running, and statistics of the last ones it ran: what
// VictoriaMetrics serves at /api/v1/status/active_queries and /api/v1/status/top_queries
// (app/vmselect/promql/active_queries.go, app/vmselect/querystats), for /api/v1/query and
// /api/v1/query_range.

/** QueryStatsOptions bound the record (-search.queryStats.* flags). */
export interface QueryStatsOptions {
  /** lastQueriesCount: how many finished queries top_queries looks at; 0 keeps none. */
  readonly lastQueriesCount: number;
  /** minQueryDurationMs: finished queries faster than this are not kept. */
  readonly minQueryDurationMs: number;
  /** now returns milliseconds (Unix time). */
  readonly now: () => number;
}

/** QueryInfo describes a query as it starts; times in ms (start = end for an instant query). */
export interface QueryInfo {
  readonly tenant: Tenant;
  readonly query: string;
  readonly start: number;
  readonly end: number;
  readonly step: number;
  /** remoteAddr is the client's `ip:port`. */
  readonly remoteAddr: string;
}

/** ActiveQuery is one running query, as active_queries lists it. */
export interface ActiveQuery extends QueryInfo {
  readonly id: number;
  readonly startedAt: number;
}

interface Finished {
  readonly tenantKey: string;
  readonly query: string;
  readonly timeRangeSeconds: number;
  readonly finishedAt: number;
  readonly durationMs: number;
}

/** QueryTotals is one query text (and time range) with how often it ran and for how long in total. */
export interface QueryTotals {
  readonly query: string;
  readonly timeRangeSeconds: number;
  readonly count: number;
  readonly sumDurationMs: number;
}

const tenantKey = (t: Tenant): string => `${t.accountID}:${t.projectID}`;

/**
 * QueryStats keeps the running queries and a ring of the last `lastQueriesCount` finished ones.
 * Memory is bounded by the concurrency limit (running) and that count (finished).
 */
export class QueryStats {
  readonly options: QueryStatsOptions;
  readonly #active = new Map<number, ActiveQuery>();
  readonly #ring: (Finished | undefined)[];
  #next = 0;
  #nextId = 1;

  constructor(o: QueryStatsOptions) {
    if (!(Number.isSafeInteger(o.lastQueriesCount) && o.lastQueriesCount >= 0)) throw new RangeError(`-search.queryStats.lastQueriesCount must be 0 or more; got ${o.lastQueriesCount}`);
    this.options = o;
    this.#ring = new Array<Finished | undefined>(o.lastQueriesCount);
  }

  /** begin records a query as running; call the returned function once it finished (or failed). */
  begin(q: QueryInfo): () => void {
    const id = this.#nextId++;
    const startedAt = this.options.now();
    this.#active.set(id, { ...q, id, startedAt });
    let done = false;
    return () => {
      if (done) return;
      done = true;
      this.#active.delete(id);
      const finishedAt = this.options.now();
      const durationMs = finishedAt - startedAt;
      if (this.#ring.length === 0 || durationMs < this.options.minQueryDurationMs) return;
      this.#ring[this.#next] = { tenantKey: tenantKey(q.tenant), query: q.query, timeRangeSeconds: Math.floor((q.end - q.start) / 1000), finishedAt, durationMs };
      this.#next = (this.#next + 1) % this.#ring.length;
    };
  }

  /** active lists the tenant's running queries, longest-running first. */
  active(tenant: Tenant): ActiveQuery[] {
    const key = tenantKey(tenant);
    return [...this.#active.values()].filter((q) => tenantKey(q.tenant) === key).sort((a, b) => a.startedAt - b.startedAt || a.id - b.id);
  }

  /** totals sums the tenant's finished queries of the last maxLifetimeMs by query text and time range. */
  totals(tenant: Tenant, maxLifetimeMs: number): QueryTotals[] {
    const key = tenantKey(tenant);
    const oldest = this.options.now() - maxLifetimeMs;
    const byQuery = new Map<string, { query: string; timeRangeSeconds: number; count: number; sumDurationMs: number }>();
    for (const r of this.#ring) {
      if (r === undefined || r.tenantKey !== key || r.finishedAt < oldest) continue;
      const k = `${r.timeRangeSeconds}\n${r.query}`;
      const t = byQuery.get(k);
      if (t === undefined) byQuery.set(k, { query: r.query, timeRangeSeconds: r.timeRangeSeconds, count: 1, sumDurationMs: r.durationMs });
      else {
        t.count++;
        t.sumDurationMs += r.durationMs;
      }
    }
    return [...byQuery.values()];
  }
}
