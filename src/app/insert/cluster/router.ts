import { callNode, type HealthPolicy, NodeRotation, type NodeState, REAL_TIMERS, type Timers } from '../../../lib/cluster/index.ts';
import { type Inserter, LimitExceededError, type MetricRow, type Tenant } from '../../../lib/storageapi/index.ts';
import * as common from '../../../lib/protoparser/common/index.ts';
import { InsertError } from '../errors.ts';
import type { KeyedInserter } from '../ingest.ts';
import { KeyRanks } from './key-ranks.ts';
import { Placement, seriesHash } from './placement.ts';

/** WriteNode is one storage node as the insert side sees it: its address and a client for it. */
export interface WriteNode {
  readonly name: string;
  readonly inserter: NodeInserter;
}

/**
 * NodeInserter is a storage node's Inserter; addKeyedRows, when it has one, takes rows in columns
 * over a key table that only grows (storagerpc's InsertNodeClient does), with addRows' guarantees.
 */
export interface NodeInserter extends Inserter {
  addKeyedRows?(tenant: Tenant, batch: common.KeyedColumns): Promise<void>;
}

/** RouterObserver is told what the router does (the binary turns it into metrics and log lines). */
export interface RouterObserver {
  /** rowsStored: a node acknowledged n rows. */
  rowsStored(node: string, n: number): void;
  /** rowsRerouted: n rows that rank node among their replicas went to other nodes instead. */
  rowsRerouted(node: string, n: number): void;
  nodeDown(node: string, err: unknown): void;
  nodeUp(node: string): void;
}

export interface ShardRouterOptions {
  readonly nodes: readonly WriteNode[];
  /** replicationFactor: distinct nodes each row is written to (capped at the node count). */
  readonly replicationFactor: number;
  /** writeTimeoutMs: a node that has not acknowledged a batch by then is treated as down for it. */
  readonly writeTimeoutMs: number;
  readonly health?: HealthPolicy;
  readonly now: () => number;
  readonly timers?: Timers;
  readonly observer?: Partial<RouterObserver>;
}

interface Node {
  readonly name: string;
  readonly inserter: NodeInserter;
  /** probe is a row the node failed to store, resent to it by the re-check. */
  probe: { readonly tenant: Tenant; readonly row: MetricRow } | undefined;
}

interface Outcome {
  readonly node: number;
  readonly rows: readonly number[];
  readonly err: unknown;
}

/**
 * ShardRouter is the insert side's Inserter over the storage nodes. Each row goes to the first
 * replicationFactor nodes of its series' ranking (placement.ts) that are in rotation. A node that
 * fails or does not acknowledge within writeTimeoutMs leaves rotation (NodeHealth) and its rows go
 * to their next nodes in the same call, so a dead or frozen node delays a batch by at most the
 * timeout, once, and later batches not at all. A node out of rotation is re-checked in the
 * background once its back-off has passed, traffic or not (Rechecker), by sending it again one row
 * it failed to store; it returns to rotation when that row is acknowledged. Copies are idempotent:
 * storage keeps one value per timestamp.
 *
 * addRows resolves once every row is held by replicationFactor distinct nodes, or, where fewer
 * nodes of its ranking are alive, by every alive one (DECISIONS.md "Cluster write acknowledgement").
 * It rejects with ERR_INSERT_UNAVAILABLE (503) when some row reached no node, and with a node's
 * LimitExceededError after storing everything else, as a single node does.
 */
export class ShardRouter implements KeyedInserter {
  readonly #nodes: readonly Node[];
  readonly #rotation: NodeRotation;
  readonly #placement: Placement;
  readonly #keyRanks: KeyRanks;
  readonly #rf: number;
  readonly #timeoutMs: number;
  readonly #timers: Timers;
  readonly #obs: Partial<RouterObserver>;

  constructor(o: ShardRouterOptions) {
    if (!Number.isInteger(o.replicationFactor) || o.replicationFactor < 1) throw new Error(`replication factor must be a positive integer; got ${o.replicationFactor}`);
    this.#placement = new Placement(o.nodes.map((n) => n.name));
    this.#keyRanks = new KeyRanks(this.#placement);
    this.#rf = Math.min(o.replicationFactor, o.nodes.length);
    this.#timeoutMs = o.writeTimeoutMs;
    this.#timers = o.timers ?? REAL_TIMERS;
    this.#obs = o.observer ?? {};
    this.#nodes = o.nodes.map((n) => ({ name: n.name, inserter: n.inserter, probe: undefined }));
    this.#rotation = new NodeRotation({
      names: o.nodes.map((n) => n.name), now: o.now, timers: this.#timers, observer: this.#obs, ...(o.health === undefined ? {} : { health: o.health }),
      check: async (k) => {
        const p = this.#nodes[k]!.probe;
        if (p === undefined) throw new Error(`no row to re-check storage node ${this.#nodes[k]!.name} with`);
        await this.#send(k, p.tenant, [p.row]).catch((err: unknown) => {
          if (!(err instanceof LimitExceededError)) throw err;
        });
      },
    });
  }

  /** nodeStates reports which nodes are in rotation. */
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

  async addRows(tenant: Tenant, rows: readonly MetricRow[]): Promise<void> {
    const count = rows.length;
    if (count === 0) return;
    const n = this.#nodes.length;
    const ranks = new Uint8Array(count * n);
    for (let i = 0; i < count; i++) this.#placement.rank(seriesHash(tenant, rows[i]!.labels), ranks.subarray(i * n, i * n + n));
    await this.#route(tenant, count, ranks, (i) => rows[i]!, (k, idx) => this.#send(k, tenant, idx.map((i) => rows[i]!)));
  }

  /**
   * addKeyedRows is addRows for a keyed batch (the keyed parsers' output): rows are placed through
   * KeyRanks, so a series seen before costs no label work here, and each node gets its share in
   * columns over the same key table (its client numbers the table's keys once per connection).
   */
  async addKeyedRows(tenant: Tenant, b: common.KeyedColumns): Promise<void> {
    const count = b.length;
    if (count === 0) return;
    const ranks = new Uint8Array(count * this.#nodes.length);
    this.#keyRanks.rank(tenant, b, ranks);
    const row = (i: number): MetricRow => ({ labels: b.table.labels[b.keys[i]!]!, timestamp: b.timestamps[i]!, value: b.values[i]! });
    await this.#route(tenant, count, ranks, row, (k, idx) => {
      const node = this.#nodes[k]!;
      const keyed = node.inserter.addKeyedRows;
      if (keyed === undefined) return this.#send(k, tenant, idx.map(row));
      // A copy, also of a whole batch: a call that timed out here may still encode it later (its
      // connection was not ready), after the parser has reused b's arrays for other rows.
      const part = pick(b, idx);
      return callNode(node.name, `store ${idx.length} rows`, this.#timeoutMs, undefined, this.#timers, () => keyed.call(node.inserter, tenant, part));
    });
  }

  // route sends rows 0…count-1 (ranked in ranks, node-count entries per row) to their nodes with
  // send, rerouting a failed node's rows to their next nodes; row(i) rebuilds a row to probe a failed node with.
  async #route(tenant: Tenant, count: number, ranks: Uint8Array, row: (i: number) => MetricRow, send: (k: number, idx: number[]) => Promise<void>): Promise<void> {
    const n = this.#nodes.length;
    const rf = this.#rf;
    // Nodes this call may write to: those in rotation; when none is, all of them (trying beats refusing).
    const usable = this.#nodes.map((_, k) => this.#rotation.isUp(k));
    if (!usable.includes(true)) usable.fill(true);
    const skipped = this.#nodes.filter((_, k) => !usable[k]).map((x) => `${x.name}: out of rotation after a failure`);
    const copies = new Uint8Array(count);
    const cursor = new Uint8Array(count);
    const rerouted = new Uint32Array(n);
    const failures: string[] = [];
    let limitError: LimitExceededError | undefined;
    let pending: number[] = Array.from({ length: count }, (_, i) => i);
    while (pending.length > 0) {
      // batches[k] lists the rows going to node k in this round (an array per node: n is small).
      const batches: (number[] | undefined)[] = new Array(n);
      let nodesAsked = 0;
      for (const i of pending) {
        let need = rf - copies[i]!;
        while (need > 0 && cursor[i]! < n) {
          const pos = cursor[i]!++;
          const k = ranks[i * n + pos]!;
          if (!usable[k]) {
            // Positions below rf are the row's own replicas: it is rerouted away from this node.
            if (pos < rf) rerouted[k]!++;
            continue;
          }
          let b = batches[k];
          if (b === undefined) {
            batches[k] = b = [];
            nodesAsked++;
          }
          b.push(i);
          need--;
        }
      }
      if (nodesAsked === 0) break;
      const asked = batches.flatMap((idx, k) => (idx === undefined ? [] : [[k, idx] as const]));
      const outcomes = await Promise.all(asked.map(([k, idx]) => send(k, idx).then(
        (): Outcome => ({ node: k, rows: idx, err: undefined }),
        (err: unknown): Outcome => ({ node: k, rows: idx, err }),
      )));
      pending = [];
      for (const o of outcomes) {
        const node = this.#nodes[o.node]!;
        if (o.err === undefined || o.err instanceof LimitExceededError) {
          if (o.err !== undefined) limitError ??= o.err;
          for (const i of o.rows) copies[i]!++;
          this.#obs.rowsStored?.(node.name, o.rows.length);
          this.#rotation.succeeded(o.node);
          continue;
        }
        usable[o.node] = false;
        failures.push(`${node.name}: ${(o.err as Error)?.message ?? String(o.err)}`);
        // The probe is set before failed() schedules the re-check that sends it.
        node.probe = { tenant, row: row(o.rows[0]!) };
        this.#rotation.failed(o.node, o.err);
        rerouted[o.node]! += o.rows.length;
        pending.push(...o.rows);
      }
    }
    for (let k = 0; k < n; k++) if (rerouted[k]! > 0) this.#obs.rowsRerouted?.(this.#nodes[k]!.name, rerouted[k]!);
    let lost = 0;
    for (let i = 0; i < count; i++) if (copies[i] === 0) lost++;
    if (lost > 0) {
      const why = [...failures, ...skipped].join('; ');
      throw new InsertError('ERR_INSERT_UNAVAILABLE', `cannot store ${lost} of ${count} rows: no storage node accepted them (${why})`);
    }
    if (limitError !== undefined) throw limitError;
  }

  #send(k: number, tenant: Tenant, rows: readonly MetricRow[]): Promise<void> {
    const node = this.#nodes[k]!;
    return callNode(node.name, `store ${rows.length} rows`, this.#timeoutMs, undefined, this.#timers, () => node.inserter.addRows(tenant, rows));
  }
}

// pick copies rows idx of b into a batch of their own over the same key table.
function pick(b: common.KeyedColumns, idx: readonly number[]): common.KeyedColumns {
  const m = idx.length;
  if (m === b.length) return common.KeyedColumns.of(b.table, b.keys.slice(0, m), b.timestamps.slice(0, m), b.values.slice(0, m), m);
  const keys = new Int32Array(m);
  const ts = new Float64Array(m);
  const vs = new Float64Array(m);
  for (let j = 0; j < m; j++) {
    const i = idx[j]!;
    keys[j] = b.keys[i]!;
    ts[j] = b.timestamps[i]!;
    vs[j] = b.values[i]!;
  }
  return common.KeyedColumns.of(b.table, keys, ts, vs, m);
}
