import { callNode, type HealthPolicy, iterateNode, NodeRotation, type NodeState, REAL_TIMERS, type Timers } from '../../../lib/cluster/index.ts';
import {
  DEFAULT_TENANT, type Labels, LimitExceededError, MatcherError, NodeUnavailableError, type SearchQuery, type SeriesSamples, type StorageApi,
  type Tenant, type TenantLister, type TimeRange, type TsdbStatus, type TsdbStatusQuery,
} from '../../../lib/storageapi/index.ts';
import { ApiError } from '../errors.ts';
import { mergeTsdbStatus, SeriesMerger, unionLabelSets, unionStrings, unionTenants } from './merge.ts';

/** ReadNode is one storage node as the select side sees it: its address and a client for it. */
export interface ReadNode {
  readonly name: string;
  readonly api: StorageApi & TenantLister;
}

/** FanoutObserver is told what the fan-out does (the binary turns it into metrics and log lines). */
export interface FanoutObserver {
  nodeDown(node: string, err: unknown): void;
  nodeUp(node: string): void;
  /** partial: an answer lacked these nodes (more than replicationFactor-1 of them); it went out partial or was refused. */
  partial(missing: readonly string[]): void;
}

export interface FanoutOptions {
  readonly nodes: readonly ReadNode[];
  /** replicationFactor: an answer lacking at most replicationFactor-1 nodes is complete. */
  readonly replicationFactor: number;
  /** denyPartialResponse: answer 503 instead of a partial answer (-search.denyPartialResponse). */
  readonly denyPartialResponse: boolean;
  /** nodeTimeoutMs bounds each call to a node, and each gap between the series a node streams. */
  readonly nodeTimeoutMs: number;
  /** dedupMs is -dedup.minScrapeInterval, applied to series merged from several nodes. */
  readonly dedupMs: number;
  readonly health?: HealthPolicy;
  readonly now: () => number;
  readonly timers?: Timers;
  readonly observer?: Partial<FanoutObserver>;
}

interface Node {
  readonly name: string;
  readonly api: StorageApi & TenantLister;
  /** k is the node's index in the rotation. */
  readonly k: number;
}

type Outcome<T> = { readonly ok: true; readonly value: T } | { readonly ok: false; readonly node: Node; readonly err: unknown };

/**
 * FanoutStorage is the select side's storage over every storage node: each call goes to the nodes
 * in rotation at once and their answers are merged (merge.ts). A node that cannot be reached or
 * does not answer within nodeTimeoutMs (for streams: between two series) leaves rotation until a
 * background re-check (`seriesCount` of tenant 0:0, once its back-off has passed) succeeds, so
 * later requests do not wait for it.
 *
 * An answer lacking nodes (out of rotation, or failing during the call) is complete when at most
 * replicationFactor-1 are missing; otherwise it is partial: marked on the request's storage
 * (RequestStorage.isPartial) or, with denyPartialResponse, a 503 naming the nodes. With every
 * node missing it is always a 503. Errors that are the request's own (a limit, a bad regexp)
 * fail the request as on a single node. deleteSeries must reach every node.
 */
export class FanoutStorage {
  readonly #nodes: readonly Node[];
  readonly #rotation: NodeRotation;
  readonly #o: FanoutOptions;
  readonly #rf: number;
  readonly #timers: Timers;
  readonly #obs: Partial<FanoutObserver>;

  constructor(o: FanoutOptions) {
    if (o.nodes.length === 0) throw new Error('cannot read from storage without storage nodes');
    if (!Number.isInteger(o.replicationFactor) || o.replicationFactor < 1) throw new Error(`replication factor must be a positive integer; got ${o.replicationFactor}`);
    this.#o = o;
    this.#rf = Math.min(o.replicationFactor, o.nodes.length);
    this.#timers = o.timers ?? REAL_TIMERS;
    this.#obs = o.observer ?? {};
    this.#nodes = o.nodes.map((n, k) => ({ name: n.name, api: n.api, k }));
    this.#rotation = new NodeRotation({
      names: o.nodes.map((n) => n.name), now: o.now, timers: this.#timers, observer: this.#obs, ...(o.health === undefined ? {} : { health: o.health }),
      check: async (k) => {
        const n = o.nodes[k]!;
        await callNode(n.name, 're-check', o.nodeTimeoutMs, undefined, this.#timers, (s) => n.api.seriesCount(DEFAULT_TENANT, s));
      },
    });
  }

  /** forRequest returns the storage one request reads through; it records whether an answer was partial. */
  forRequest(): RequestStorage {
    return new RequestStorage(this);
  }

  nodeStates(): NodeState[] {
    return this.#rotation.nodeStates();
  }

  /** idle resolves once the background re-checks in flight have finished. */
  idle(): Promise<void> {
    return this.#rotation.idle();
  }

  /** close stops the background re-checks (at shutdown). */
  close(): void {
    this.#rotation.close();
  }

  /**
   * gather runs call on every node in rotation (all of them when none is) and returns the answers
   * of those that answered, after judging what is missing (see the class comment).
   */
  async gather<T>(op: string, signal: AbortSignal, call: (api: Node['api'], node: string, signal: AbortSignal) => Promise<T>, req: RequestStorage, requireAll = false): Promise<T[]> {
    signal.throwIfAborted();
    let targets = this.#nodes.filter((n) => this.#rotation.isUp(n.k));
    if (targets.length === 0) targets = [...this.#nodes];
    const outcomes = await Promise.all(targets.map((n) => this.#call(n, op, signal, call)));
    signal.throwIfAborted();
    const values: T[] = [];
    const missing: string[] = [];
    const reasons: string[] = [];
    for (const o of outcomes) {
      if (o.ok) {
        values.push(o.value);
        continue;
      }
      // The request's own errors are the same on every node: fail it as a single node would.
      if (isRequestError(o.err)) throw o.err;
      missing.push(o.node.name);
      reasons.push(`${o.node.name}: ${(o.err as Error)?.message ?? String(o.err)}`);
    }
    for (const n of this.#nodes) {
      if (targets.includes(n)) continue;
      missing.push(n.name);
      reasons.push(`${n.name}: out of rotation after a failure`);
    }
    if (missing.length === 0) return values;
    const why = reasons.join('; ');
    if (requireAll) throw new ApiError('unavailable', `cannot ${op} on every storage node (${why}); the nodes that answered did it, retry once every node answers`);
    if (missing.length < this.#rf) return values;
    this.#obs.partial?.(missing);
    if (missing.length === this.#nodes.length) throw new ApiError('unavailable', `cannot ${op}: no storage node answered (${why})`);
    if (this.#o.denyPartialResponse) {
      throw new ApiError('unavailable', `cannot ${op} completely: storage node${missing.length > 1 ? 's' : ''} ${missing.join(', ')} did not answer (${why}), and -search.denyPartialResponse is set`);
    }
    req.markPartial(missing);
    return values;
  }

  /** unary makes a gather call of a one-answer method: bounded by nodeTimeoutMs. */
  unary<T>(fn: (api: Node['api'], signal: AbortSignal) => Promise<T>, what: string) {
    return (api: Node['api'], node: string, signal: AbortSignal): Promise<T> => callNode(node, what, this.#o.nodeTimeoutMs, signal, this.#timers, (s) => fn(api, s));
  }

  /** stream makes a gather call that reads a node's series into merger: each series within nodeTimeoutMs of the last. */
  stream(q: SearchQuery, merger: SeriesMerger) {
    return async (api: Node['api'], node: string, signal: AbortSignal): Promise<void> => {
      for await (const s of iterateNode(node, 'search series', this.#o.nodeTimeoutMs, signal, this.#timers, (sig) => api.searchSeries(q, sig))) merger.add(s);
    };
  }

  get dedupMs(): number {
    return this.#o.dedupMs;
  }

  async #call<T>(n: Node, op: string, signal: AbortSignal, call: (api: Node['api'], node: string, signal: AbortSignal) => Promise<T>): Promise<Outcome<T>> {
    try {
      const value = await call(n.api, n.name, signal);
      this.#rotation.succeeded(n.k);
      return { ok: true, value };
    } catch (err) {
      if (signal.aborted) throw signal.reason;
      // Only a node that cannot be reached in time leaves rotation; one that answered with an
      // error is missing from this answer alone.
      if (err instanceof NodeUnavailableError) this.#rotation.failed(n.k, err);
      return { ok: false, node: n, err };
    }
  }
}

/**
 * checkMaxSeries applies SearchQuery.maxSeries to the merged answer: each node applies it to its
 * own share only, and the shares together may hold more.
 */
function checkMaxSeries(n: number, maxSeries: number): void {
  if (maxSeries > 0 && n > maxSeries) {
    throw new LimitExceededError(`the search matches more than ${maxSeries} series; narrow the selector or the time range, or raise -search.maxUniqueTimeseries`, 'search.maxUniqueTimeseries', maxSeries);
  }
}

/** isRequestError: the node answered, and the answer is that the request itself cannot be served. */
function isRequestError(err: unknown): boolean {
  return err instanceof LimitExceededError || err instanceof MatcherError || err instanceof ApiError;
}

/**
 * RequestStorage is what one request reads through: storageapi over every node (FanoutStorage),
 * remembering whether any answer lacked more nodes than replication covers.
 */
export class RequestStorage implements StorageApi, TenantLister {
  readonly #f: FanoutStorage;
  readonly #missing = new Set<string>();

  constructor(f: FanoutStorage) {
    this.#f = f;
  }

  /** isPartial reports whether an answer of this request lacked data (the response's isPartial). */
  get isPartial(): boolean {
    return this.#missing.size > 0;
  }

  /** missingNodes lists the nodes whose data some answer of this request lacked. */
  get missingNodes(): string[] {
    return [...this.#missing];
  }

  markPartial(nodes: readonly string[]): void {
    for (const n of nodes) this.#missing.add(n);
  }

  async *searchSeries(q: SearchQuery, signal: AbortSignal): AsyncIterable<SeriesSamples> {
    const merger = new SeriesMerger();
    await this.#f.gather('search series', signal, this.#f.stream(q, merger), this);
    checkMaxSeries(merger.size, q.maxSeries);
    yield* merger.merged(this.#f.dedupMs);
  }

  async searchLabelSets(q: SearchQuery, limit: number, signal: AbortSignal): Promise<Labels[]> {
    const lists = await this.#f.gather('search series', signal, this.#f.unary((api, s) => api.searchLabelSets(q, limit, s), 'search series'), this);
    const all = unionLabelSets(lists, 0);
    checkMaxSeries(all.length, q.maxSeries);
    return limit > 0 ? all.slice(0, limit) : all;
  }

  async labelNames(q: SearchQuery, limit: number, signal: AbortSignal): Promise<string[]> {
    const lists = await this.#f.gather('list label names', signal, this.#f.unary((api, s) => api.labelNames(q, limit, s), 'list label names'), this);
    return unionStrings(lists, limit);
  }

  async labelValues(q: SearchQuery, labelName: string, limit: number, signal: AbortSignal): Promise<string[]> {
    const lists = await this.#f.gather('list label values', signal, this.#f.unary((api, s) => api.labelValues(q, labelName, limit, s), 'list label values'), this);
    return unionStrings(lists, limit);
  }

  async seriesCount(tenant: Tenant, signal: AbortSignal): Promise<number> {
    const counts = await this.#f.gather('count series', signal, this.#f.unary((api, s) => api.seriesCount(tenant, s), 'count series'), this);
    return counts.reduce((a, b) => a + b, 0);
  }

  async tsdbStatus(q: TsdbStatusQuery, signal: AbortSignal): Promise<TsdbStatus> {
    const parts = await this.#f.gather('read cardinality statistics', signal, this.#f.unary((api, s) => api.tsdbStatus(q, s), 'read cardinality statistics'), this);
    return mergeTsdbStatus(parts, q.topN);
  }

  async deleteSeries(q: SearchQuery, signal: AbortSignal): Promise<number> {
    const counts = await this.#f.gather('delete series', signal, this.#f.unary((api, s) => api.deleteSeries(q, s), 'delete series'), this, true);
    return counts.reduce((a, b) => a + b, 0);
  }

  async listTenants(range: TimeRange, signal: AbortSignal): Promise<Tenant[]> {
    const lists = await this.#f.gather('list tenants', signal, this.#f.unary((api, s) => api.listTenants(range, s), 'list tenants'), this);
    return unionTenants(lists);
  }
}
