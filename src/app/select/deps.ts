import type { FastifyRequest } from 'fastify';
import type { Logger } from '../../lib/logger/index.ts';
import type { MetadataReader } from '../../lib/metadata/index.ts';
import type { RollupOffload } from '../../lib/query/index.ts';
import type { StorageApi, Tenant } from '../../lib/storageapi/index.ts';
import type { ConcurrencyLimiter } from './concurrency.ts';
import type { SelectLimits } from './flags.ts';
import type { QueryStats } from './query-stats.ts';
import type { RollupResultCache } from './rollup-cache.ts';
import type { VmalertProxy } from './vmalert.ts';

/** SelectDeps are what the read routes need; tests build them directly, the binary from flags. */
export interface SelectDeps {
  /** storage is read (and, for delete_series, written) through storageapi only. */
  readonly storage: StorageApi;
  readonly tenant: Tenant;
  readonly limits: SelectLimits;
  readonly limiter: ConcurrencyLimiter;
  readonly cache: RollupResultCache;
  readonly logger: Logger;
  readonly now: () => number;
  /**
   * queryStats records running and finished queries (active_queries, top_queries); registerSelectRoutes
   * creates one with VictoriaMetrics' defaults when none is given.
   */
  readonly queryStats?: QueryStats;
  /** metadata answers /api/v1/metadata; absent, it answers no metadata. */
  readonly metadata?: MetadataReader;
  /** vmalert receives /api/v1/rules and /api/v1/alerts (-vmalert.proxyURL); absent, they are empty lists. */
  readonly vmalert?: VmalertProxy;
  /**
   * rollupOffload evaluates the rollups of range selectors on worker threads (-search.queryWorkers);
   * absent, queries run on the event loop only.
   */
  readonly rollupOffload?: RollupOffload;
  /**
   * scope, when set (the cluster select), gives each request its own tenant and storage: the
   * tenant from the URL, and a storage that records whether an answer lacked storage nodes
   * (`isPartial` in the response). It throws an ApiError for a bad tenant.
   */
  readonly scope?: (req: FastifyRequest, kind: 'read' | 'delete') => RequestScope;
}

/** RequestScope is one request's view of the cluster (see SelectDeps.scope). */
export interface RequestScope {
  readonly tenant: Tenant;
  readonly storage: StorageApi;
  /** isPartial reports whether some answer of the request lacked data of a storage node. */
  isPartial(): boolean;
}
