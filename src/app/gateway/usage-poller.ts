// Limit usage, refreshed every -ratelimit.refreshInterval from the datasource (DECISIONS.md
// "Usage queries", "Datasource unreachable"): a query that fails keeps the last usage it gave, so a
// datasource that is down never blocks traffic by itself; it is logged and counted.
import type { Logger } from '../../lib/logger/index.ts';
import type { Usage } from './limiter.ts';
import * as m from './metrics.ts';
import { parseUsageAnswer, type UsageKey, type UsageQuery } from './usage-queries.ts';

/** UsagePollerOptions wire the poller. */
export interface UsagePollerOptions {
  /** query runs one instant query (Datasource.query). */
  readonly query: (expr: string) => Promise<unknown>;
  /** queries returns what to measure now (it follows config reloads). */
  readonly queries: () => readonly UsageQuery[];
  /** onUsage receives every refreshed usage. */
  readonly onUsage: (u: Usage) => void;
  readonly intervalMs: number;
  readonly logger: Logger;
  /** now returns ms since the epoch. */
  readonly now: () => number;
}

/** UsagePoller refreshes usage on a timer; refreshes never overlap. */
export class UsagePoller {
  readonly #o: UsagePollerOptions;
  /** #byKey is the last good answer per quantity: tenant key → value. */
  #byKey = new Map<UsageKey, ReadonlyMap<string, number>>();
  #timer: NodeJS.Timeout | undefined;
  #running: Promise<void> | undefined;
  #again = false;

  constructor(o: UsagePollerOptions) {
    this.#o = o;
  }

  start(): void {
    void this.refresh();
    this.#timer = setInterval(() => {
      if (this.#running === undefined) void this.refresh();
    }, this.#o.intervalMs);
    this.#timer.unref();
  }

  stop(): void {
    clearInterval(this.#timer);
  }

  /** refresh measures usage now; a call during a refresh makes one more run after it. Never rejects. */
  refresh(): Promise<void> {
    if (this.#running !== undefined) {
      this.#again = true;
      return this.#running;
    }
    this.#running = (async () => {
      do {
        this.#again = false;
        await this.#refreshOnce();
      } while (this.#again);
    })().finally(() => {
      this.#running = undefined;
    });
    return this.#running;
  }

  async #refreshOnce(): Promise<void> {
    const o = this.#o;
    const queries = o.queries();
    const results = await Promise.allSettled(queries.map(async (q) => {
      m.datasourceRequests.inc();
      return parseUsageAnswer(await o.query(q.expr));
    }));
    const next = new Map<UsageKey, ReadonlyMap<string, number>>();
    let failed = 0;
    results.forEach((r, i) => {
      const q = queries[i]!;
      if (r.status === 'fulfilled') {
        next.set(q.key, r.value);
        return;
      }
      failed++;
      m.datasourceErrors.inc();
      o.logger.error({ err: r.reason }, `cannot measure rate limit usage with ${JSON.stringify(q.expr)}; keeping the last known usage`);
      const last = this.#byKey.get(q.key);
      if (last !== undefined) next.set(q.key, last);
    });
    this.#byKey = next;
    if (failed === 0 && queries.length > 0) m.usageTimestamp.set(o.now() / 1000);
    o.onUsage(byTenant(next));
    publish(next);
  }
}

function byTenant(byKey: ReadonlyMap<UsageKey, ReadonlyMap<string, number>>): Usage {
  const out = new Map<string, Map<UsageKey, number>>();
  for (const [key, tenants] of byKey) {
    for (const [t, v] of tenants) {
      let u = out.get(t);
      if (u === undefined) out.set(t, (u = new Map()));
      u.set(key, v);
    }
  }
  return out;
}

function publish(byKey: ReadonlyMap<UsageKey, ReadonlyMap<string, number>>): void {
  m.usage.reset();
  for (const [key, tenants] of byKey) {
    const [type, resolution = ''] = key.split('/');
    for (const [t, v] of tenants) {
      const [accountID, projectID] = t.split(':');
      m.usage.set({ accountID: accountID!, projectID: projectID!, type: type!, resolution }, v);
    }
  }
}
