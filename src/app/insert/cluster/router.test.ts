// The shard router against fault-injecting in-memory storage nodes: placement of replicas,
// rerouting around nodes that are down, slow or frozen, the acknowledgement rule, recovery by
// background re-checks, and limit errors that are answers, not failures.

import { afterEach, describe, expect, it } from 'vitest';
import { DOWN, FaultyNode, FROZEN, OK, slow } from '../../../lib/cluster/testing/faulty-node.ts';
import { MemorySearcher } from '../../../lib/query/index.ts';
import { common } from '../../../lib/protoparser/index.ts';
import { type Labels, LimitExceededError, type MetricRow, type Tenant } from '../../../lib/storageapi/index.ts';
import { InsertError } from '../errors.ts';
import { Placement, seriesHash } from './placement.ts';
import { type RouterObserver, ShardRouter } from './router.ts';

const T: Tenant = { accountID: 3, projectID: 1 };
const TIMEOUT = 150;
const BACKOFF = { minBackoffMs: 200, maxBackoffMs: 400 };

const labels = (i: number): Labels => [{ name: '__name__', value: 'm' }, { name: 'i', value: String(i) }];
const rowsOf = (n: number, ts = 1000): MetricRow[] => Array.from({ length: n }, (_, i) => ({ labels: labels(i), timestamp: ts, value: i }));

interface Events {
  stored: Map<string, number>;
  rerouted: Map<string, number>;
  down: string[];
  up: string[];
}

const routers: Array<{ nodes: FaultyNode[]; router: ShardRouter }> = [];
afterEach(async () => {
  // Thaw anything left frozen so no call stays pending after the test.
  for (const { nodes, router } of routers.splice(0)) {
    router.close();
    for (const n of nodes) n.setMode(OK);
    await router.idle();
  }
});

// keyedBatch numbers series 0…n-1 in a key table of their own, rows in the order of is.
function keyedBatch(is: readonly number[], ts = 1000): common.KeyedColumns {
  const table = new common.SeriesKeyTable();
  const b = new common.KeyedColumns(is.length, table);
  for (const i of is) {
    while (table.labels.length <= i) {
      table.labels.push(labels(table.labels.length));
      table.rawKeys.push('');
    }
    b.push(i, ts, i);
  }
  return b;
}

// KeyedNode gives a FaultyNode the keyed call of storagerpc's client (faults apply to it alike),
// recording the batches it was handed.
class KeyedNode {
  readonly name: string;
  readonly node: FaultyNode;
  readonly batches: common.KeyedColumns[] = [];
  constructor(node: FaultyNode) {
    this.name = node.name;
    this.node = node;
  }
  addRows(t: Tenant, rows: readonly MetricRow[]): Promise<void> {
    return this.node.addRows(t, rows);
  }
  addKeyedRows(t: Tenant, b: common.KeyedColumns): Promise<void> {
    this.batches.push(b);
    return this.node.addRows(t, b.toRows());
  }
}

function setup(n: number, rf: number, keyed = false) {
  const nodes = Array.from({ length: n }, (_, i) => new FaultyNode(`s${i}:8400`, new MemorySearcher()));
  const keyedNodes = nodes.map((x) => new KeyedNode(x));
  const ev: Events = { stored: new Map(), rerouted: new Map(), down: [], up: [] };
  const add = (m: Map<string, number>, k: string, v: number) => m.set(k, (m.get(k) ?? 0) + v);
  const observer: Partial<RouterObserver> = {
    rowsStored: (node, c) => add(ev.stored, node, c),
    rowsRerouted: (node, c) => add(ev.rerouted, node, c),
    nodeDown: (node) => ev.down.push(node),
    nodeUp: (node) => ev.up.push(node),
  };
  const router = new ShardRouter({ nodes: nodes.map((x, k) => ({ name: x.name, inserter: keyed ? keyedNodes[k]! : x })), replicationFactor: rf, writeTimeoutMs: TIMEOUT, health: BACKOFF, now: Date.now, observer });
  routers.push({ nodes, router });
  const mem = (k: number) => nodes[k]!.backend as MemorySearcher;
  // held counts the samples node k holds.
  const held = async (k: number): Promise<number> => {
    let count = 0;
    for await (const s of mem(k).searchSeries({ tenant: T, matcherSets: [], timeRange: { minTimestamp: 0, maxTimestamp: 1e13 }, maxSeries: 0 }, new AbortController().signal)) count += s.timestamps.length;
    return count;
  };
  // holders lists the nodes holding a sample of series i.
  const holders = async (i: number): Promise<number[]> => {
    const out: number[] = [];
    for (let k = 0; k < n; k++) {
      const sets = await mem(k).searchLabelSets({ tenant: T, matcherSets: [[{ name: 'i', type: '=', value: String(i) }]], timeRange: { minTimestamp: 0, maxTimestamp: 1e13 }, maxSeries: 0 }, 0, new AbortController().signal);
      if (sets.length > 0) out.push(k);
    }
    return out;
  };
  const placement = new Placement(nodes.map((x) => x.name));
  const ranking = (i: number) => {
    const o = new Uint8Array(n);
    placement.rank(seriesHash(T, labels(i)), o);
    return [...o];
  };
  return { nodes, keyedNodes, router, ev, mem, held, holders, ranking };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('ShardRouter', () => {
  it('writes each row to the first replicationFactor nodes of its ranking', async () => {
    const { router, holders, ranking, ev } = setup(3, 2);
    await router.addRows(T, rowsOf(60));
    for (let i = 0; i < 60; i++) expect(await holders(i)).toEqual(ranking(i).slice(0, 2).sort());
    expect([...ev.stored.values()].reduce((a, b) => a + b)).toBe(120);
    expect(ev.rerouted.size).toBe(0);
  });

  it('places keyed batches exactly as rows, handing each node its share in columns over the same table', async () => {
    const { router, holders, ranking, keyedNodes } = setup(3, 2, true);
    // Series repeat within and across batches: the second batch places them from the cache.
    const is = Array.from({ length: 90 }, (_, j) => (j * 7) % 60);
    const first = keyedBatch(is);
    await router.addKeyedRows(T, first);
    await router.addKeyedRows(T, common.KeyedColumns.of(first.table, first.keys, Float64Array.from(is, () => 2000), first.values, first.length));
    for (let i = 0; i < 60; i++) expect(await holders(i)).toEqual(ranking(i).slice(0, 2).sort());
    for (const k of keyedNodes) {
      expect(k.batches.length).toBe(2);
      for (const b of k.batches) expect(b.table).toBe(first.table);
    }
    // Nodes get copies: a call still running after the router gave up on it never sees the
    // parser reuse its arrays.
    const seen = keyedNodes.flatMap((k) => k.batches.map((b) => Array.from(b.values.subarray(0, b.length))));
    first.values.fill(-1);
    expect(keyedNodes.flatMap((k) => k.batches.map((b) => Array.from(b.values.subarray(0, b.length))))).toEqual(seen);
    // A node without the keyed call gets rows: the same placement.
    const plain = setup(3, 2);
    await plain.router.addKeyedRows(T, keyedBatch(is));
    for (let i = 0; i < 60; i++) expect(await plain.holders(i)).toEqual(ranking(i).slice(0, 2).sort());
  });

  it('reroutes keyed rows of a node that is down, as it does rows', async () => {
    const { nodes, router, holders, ev, ranking } = setup(3, 2, true);
    nodes[1]!.setMode(DOWN);
    await router.addKeyedRows(T, keyedBatch(Array.from({ length: 60 }, (_, i) => i)));
    let moved = 0;
    for (let i = 0; i < 60; i++) {
      const h = await holders(i);
      expect(h).toHaveLength(2);
      expect(h).not.toContain(1);
      if (ranking(i).slice(0, 2).includes(1)) moved++;
    }
    expect(ev.rerouted.get('s1:8400')).toBe(moved);
    expect(router.nodeStates()[1]!.up).toBe(false);
  });

  it('caps the factor at the node count', async () => {
    const { router, holders } = setup(2, 3);
    await router.addRows(T, rowsOf(10));
    for (let i = 0; i < 10; i++) expect(await holders(i)).toEqual([0, 1]);
  });

  it('reroutes the rows of a node that is down to their next nodes, keeping the factor, and skips it afterwards', async () => {
    const { nodes, router, holders, ranking, ev } = setup(3, 2);
    nodes[0]!.setMode(DOWN);
    await router.addRows(T, rowsOf(60));
    let moved = 0;
    for (let i = 0; i < 60; i++) {
      const h = await holders(i);
      expect(h).toHaveLength(2);
      expect(h).not.toContain(0);
      if (ranking(i).slice(0, 2).includes(0)) moved++;
    }
    expect(ev.rerouted.get('s0:8400')).toBe(moved);
    expect(ev.down).toEqual(['s0:8400']);
    expect(router.nodeStates()).toEqual([{ name: 's0:8400', up: false }, { name: 's1:8400', up: true }, { name: 's2:8400', up: true }]);
    // Within the back-off the down node is not asked again.
    const before = nodes[0]!.calls.get('addRows');
    await router.addRows(T, rowsOf(60, 2000));
    expect(nodes[0]!.calls.get('addRows')).toBe(before);
  });

  it('brings a node back by itself: after the back-off it resends it a row it failed to store, traffic or not', async () => {
    const { nodes, router, held, ev } = setup(2, 1);
    nodes[1]!.setMode(DOWN);
    await router.addRows(T, rowsOf(40, 1000));
    expect(await held(1)).toBe(0);
    expect(ev.down).toEqual(['s1:8400']);
    // A failed re-check doubles the back-off: still down after the first one.
    await sleep(BACKOFF.minBackoffMs + 50);
    await router.idle();
    expect(router.nodeStates()[1]!.up).toBe(false);
    nodes[1]!.setMode(OK);
    // No writes meanwhile: the re-check timer alone brings it back (next one 2 × 200 ms later).
    await sleep(2 * BACKOFF.minBackoffMs + 50);
    await router.idle();
    expect(ev.up).toEqual(['s1:8400']);
    expect(await held(1)).toBe(1);
    await router.addRows(T, rowsOf(40, 3000));
    expect(await held(1)).toBeGreaterThan(1);
    expect(router.nodeStates().every((s) => s.up)).toBe(true);
  });

  it('does not let a frozen node hold ingestion: one batch waits out the timeout, later ones not at all', async () => {
    const { nodes, router, holders } = setup(3, 2);
    nodes[2]!.setMode(FROZEN);
    let t = performance.now();
    await router.addRows(T, rowsOf(30, 1000));
    const first = performance.now() - t;
    expect(first).toBeGreaterThanOrEqual(TIMEOUT - 5);
    expect(first).toBeLessThan(TIMEOUT + 1000);
    for (let i = 0; i < 30; i++) expect((await holders(i)).filter((k) => k !== 2)).toHaveLength(2);
    t = performance.now();
    await router.addRows(T, rowsOf(30, 2000));
    expect(performance.now() - t).toBeLessThan(TIMEOUT);
    // Re-checks of the frozen node run in the background: writes keep their pace meanwhile.
    await sleep(BACKOFF.minBackoffMs + 50);
    t = performance.now();
    await router.addRows(T, rowsOf(30, 3000));
    expect(performance.now() - t).toBeLessThan(TIMEOUT);
    expect(router.nodeStates()[2]!.up).toBe(false);
  });

  it('treats a node slower than the timeout as down, and waits for one within it', async () => {
    const { nodes, router, held } = setup(2, 2);
    nodes[0]!.setMode(slow(60));
    const t = performance.now();
    await router.addRows(T, rowsOf(10));
    // Acknowledged only once the slow replica holds the rows too.
    expect(performance.now() - t).toBeGreaterThanOrEqual(55);
    expect(await held(0)).toBe(10);
    nodes[0]!.setMode(slow(TIMEOUT * 4));
    await router.addRows(T, rowsOf(10, 2000));
    expect(router.nodeStates()[0]!.up).toBe(false);
    expect(await held(1)).toBe(20);
  });

  it('acknowledges with fewer copies only when fewer nodes are alive, and refuses when none is', async () => {
    const { nodes, router, holders } = setup(2, 2);
    nodes[1]!.setMode(DOWN);
    await router.addRows(T, rowsOf(5));
    for (let i = 0; i < 5; i++) expect(await holders(i)).toEqual([0]);
    nodes[0]!.setMode(DOWN);
    const err = await router.addRows(T, rowsOf(5, 2000)).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(InsertError);
    expect((err as InsertError).status).toBe(503);
    expect((err as Error).message).toBe('cannot store 5 of 5 rows: no storage node accepted them (s0:8400: cannot addRows on storage node s0:8400: connection refused; s1:8400: out of rotation after a failure)');
  });

  it('tries every node when none is in rotation, rather than refusing', async () => {
    const { nodes, router, held } = setup(2, 1);
    nodes[0]!.setMode(DOWN);
    nodes[1]!.setMode(DOWN);
    await expect(router.addRows(T, rowsOf(4))).rejects.toThrow(InsertError);
    nodes[0]!.setMode(OK);
    nodes[1]!.setMode(OK);
    await router.addRows(T, rowsOf(4, 2000));
    expect((await held(0)) + (await held(1))).toBe(4);
  });

  it('passes a limit error on after storing the rest, without taking the node out of rotation', async () => {
    const { nodes, router, mem, held } = setup(2, 2);
    const base = mem(0);
    const inner = base.addRows.bind(base);
    base.addRows = async (tenant, rows) => {
      await inner(tenant, rows.filter((r) => r.value !== 3));
      if (rows.some((r) => r.value === 3)) throw new LimitExceededError('series has too many labels', '-maxLabelsPerTimeseries', 30);
    };
    await expect(router.addRows(T, rowsOf(6))).rejects.toBeInstanceOf(LimitExceededError);
    expect(await held(0)).toBe(5);
    expect(await held(1)).toBe(6);
    expect(router.nodeStates().every((s) => s.up)).toBe(true);
    expect(nodes[0]!.calls.get('addRows')).toBe(1);
  });
});
