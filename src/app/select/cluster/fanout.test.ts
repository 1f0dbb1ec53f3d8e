// The fan-out storage over fault-injecting in-memory storage nodes: merged answers, the
// isPartial rules with and without replication, -search.denyPartialResponse, nodes that leave
// rotation and come back, frozen nodes that must not hold a query, and deletion everywhere.

import { afterEach, describe, expect, it } from 'vitest';
import { DOWN, FaultyNode, FROZEN, OK } from '../../../lib/cluster/testing/faulty-node.ts';
import { MemorySearcher } from '../../../lib/query/index.ts';
import { LimitExceededError, type SearchQuery, type SeriesSamples, type Tenant } from '../../../lib/storageapi/index.ts';
import { ApiError } from '../errors.ts';
import { FanoutStorage, type FanoutObserver, type RequestStorage } from './fanout.ts';

const T: Tenant = { accountID: 1, projectID: 0 };
const TIMEOUT = 150;
const BACKOFF = { minBackoffMs: 200, maxBackoffMs: 400 };
const m = (name: string, extra: Record<string, string> = {}) => [{ name: '__name__', value: name }, ...Object.entries(extra).map(([n, v]) => ({ name: n, value: v }))].sort((a, b) => (a.name < b.name ? -1 : 1));
const Q = (sets: SearchQuery['matcherSets'] = [[{ name: '__name__', type: '=~', value: '.+' }]]): SearchQuery => ({ tenant: T, matcherSets: sets, timeRange: { minTimestamp: 0, maxTimestamp: 1e6 }, maxSeries: 0 });
const signal = () => new AbortController().signal;

const fanouts: Array<{ nodes: FaultyNode[]; f: FanoutStorage }> = [];
afterEach(async () => {
  for (const { nodes, f } of fanouts.splice(0)) {
    f.close();
    for (const n of nodes) n.setMode(OK);
    await f.idle();
  }
});

function setup(n: number, o: { rf?: number; deny?: boolean } = {}) {
  const nodes = Array.from({ length: n }, (_, i) => new FaultyNode(`s${i}:8401`, new MemorySearcher()));
  const mem = (k: number) => nodes[k]!.backend as MemorySearcher;
  const partials: string[][] = [];
  const observer: Partial<FanoutObserver> = { partial: (missing) => void partials.push([...missing]) };
  const f = new FanoutStorage({
    nodes: nodes.map((x) => ({ name: x.name, api: x })), replicationFactor: o.rf ?? 1, denyPartialResponse: o.deny ?? false,
    nodeTimeoutMs: TIMEOUT, dedupMs: 0, health: BACKOFF, now: Date.now, observer,
  });
  fanouts.push({ nodes, f });
  return { nodes, mem, f, partials };
}

async function all(r: RequestStorage, q = Q()): Promise<Record<string, number[][]>> {
  const out: Record<string, number[][]> = {};
  for await (const s of r.searchSeries(q, signal()) as AsyncIterable<SeriesSamples>) {
    out[s.labels.map((l) => `${l.name}=${l.value}`).join(',')] = Array.from(s.timestamps, (t, i) => [t, s.values[i]!]);
  }
  return out;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('FanoutStorage', () => {
  it('merges series, label sets, names, values and counts over the nodes', async () => {
    const { mem, f } = setup(2);
    // m{a} split between the nodes (rerouted rows), m{b} on both (replicas), n only on node 1.
    mem(0).add(T, m('m', { i: 'a' }), 1, 1);
    mem(1).add(T, m('m', { i: 'a' }), 2, 2);
    mem(0).add(T, m('m', { i: 'b' }), 1, 5);
    mem(1).add(T, m('m', { i: 'b' }), 1, 5);
    mem(1).add(T, m('n'), 1, 7);
    const r = f.forRequest();
    expect(await all(r)).toEqual({ '__name__=m,i=a': [[1, 1], [2, 2]], '__name__=m,i=b': [[1, 5]], '__name__=n': [[1, 7]] });
    expect((await r.searchLabelSets(Q(), 0, signal())).map((ls) => ls.map((l) => l.value).join())).toEqual(['m,a', 'm,b', 'n']);
    expect(await r.labelNames(Q([]), 0, signal())).toEqual(['__name__', 'i']);
    expect(await r.labelValues(Q([]), '__name__', 0, signal())).toEqual(['m', 'n']);
    expect(await r.labelValues(Q([]), '__name__', 1, signal())).toEqual(['m']);
    expect(await r.seriesCount(T, signal())).toBe(5); // the sum of the nodes' counts: copies count once per node
    expect(r.isPartial).toBe(false);
  });

  it('answers without a node, marked partial, when replication does not cover it', async () => {
    const { nodes, mem, f, partials } = setup(2, { rf: 1 });
    mem(0).add(T, m('a'), 1, 1);
    mem(1).add(T, m('b'), 1, 1);
    nodes[1]!.setMode(DOWN);
    const r = f.forRequest();
    expect(await all(r)).toEqual({ '__name__=a': [[1, 1]] });
    expect(r.isPartial).toBe(true);
    expect(r.missingNodes).toEqual(['s1:8401']);
    expect(partials).toEqual([['s1:8401']]);
    // Each request has its own flag.
    nodes[1]!.setMode(OK);
    expect(f.forRequest().isPartial).toBe(false);
  });

  it('answers complete when at most replicationFactor-1 nodes are missing', async () => {
    const { nodes, mem, f, partials } = setup(3, { rf: 2 });
    for (const k of [0, 1, 2]) mem(k).add(T, m('a'), 1, 1);
    nodes[2]!.setMode(DOWN);
    const r = f.forRequest();
    expect(await all(r)).toEqual({ '__name__=a': [[1, 1]] });
    expect(r.isPartial).toBe(false);
    nodes[1]!.setMode(DOWN);
    const r2 = f.forRequest();
    await all(r2);
    expect(r2.isPartial).toBe(true);
    expect(partials).toEqual([['s1:8401', 's2:8401']]);
  });

  it('refuses a partial answer with 503 naming the nodes under -search.denyPartialResponse', async () => {
    const { nodes, f, partials } = setup(2, { rf: 1, deny: true });
    nodes[0]!.setMode(DOWN);
    const err = await f.forRequest().labelNames(Q([]), 0, signal()).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ApiError);
    expect((err as ApiError).status).toBe(503);
    expect((err as Error).message).toBe('cannot list label names completely: storage node s0:8401 did not answer (s0:8401: cannot labelNames on storage node s0:8401: connection refused), and -search.denyPartialResponse is set');
    expect(partials).toHaveLength(1);
  });

  it('fails with 503 when no node answers, whatever the flags', async () => {
    const { nodes, f, partials } = setup(2, { rf: 2 });
    nodes[0]!.setMode(DOWN);
    nodes[1]!.setMode(DOWN);
    const err = await f.forRequest().seriesCount(T, signal()).catch((e: unknown) => e);
    expect((err as ApiError).status).toBe(503);
    expect((err as Error).message).toMatch(/^cannot count series: no storage node answered \(s0:8401: /);
    expect(partials).toEqual([['s0:8401', 's1:8401']]);
  });

  it('does not let a frozen node hold a query past the node timeout, and skips it afterwards', async () => {
    const { nodes, mem, f } = setup(2, { rf: 2 });
    mem(0).add(T, m('a'), 1, 1);
    mem(1).add(T, m('a'), 1, 1);
    nodes[1]!.setMode(FROZEN);
    let t = performance.now();
    const r = f.forRequest();
    expect(await all(r)).toEqual({ '__name__=a': [[1, 1]] });
    expect(performance.now() - t).toBeLessThan(TIMEOUT + 500);
    expect(r.isPartial).toBe(false);
    expect(f.nodeStates()[1]!.up).toBe(false);
    t = performance.now();
    await all(f.forRequest());
    expect(performance.now() - t).toBeLessThan(TIMEOUT / 2);
    // Thawed, it comes back through a background re-check once its back-off has passed, queries or not.
    nodes[1]!.setMode(OK);
    await sleep(BACKOFF.minBackoffMs + 50);
    await f.idle();
    expect(f.nodeStates()[1]!.up).toBe(true);
  });

  it('gives up at once when the request is aborted, even on a frozen node', async () => {
    const { nodes, f } = setup(1);
    nodes[0]!.setMode(FROZEN);
    const ac = new AbortController();
    const p = f.forRequest().labelNames(Q([]), 0, ac.signal);
    ac.abort(new Error('deadline'));
    await expect(p).rejects.toThrow('deadline');
  });

  it('fails the request with a node\'s answer that the request itself is wrong, as a single node would', async () => {
    const { mem, f } = setup(2, { rf: 2 });
    mem(0).labelNames = async () => { throw new LimitExceededError('too many series', '-search.maxUniqueTimeseries', 1); };
    await expect(f.forRequest().labelNames(Q([]), 0, signal())).rejects.toBeInstanceOf(LimitExceededError);
    expect(f.nodeStates().every((s) => s.up)).toBe(true);
  });

  it('counts a node answering with an error as missing from that answer only', async () => {
    const { mem, f } = setup(2, { rf: 1 });
    mem(0).labelNames = async () => { throw new Error('disk read failed'); };
    const r = f.forRequest();
    expect(await r.labelNames(Q([]), 0, signal())).toEqual([]);
    expect(r.isPartial).toBe(true);
    expect(f.nodeStates()[0]!.up).toBe(true);
  });

  it('deletes on every node or fails with 503', async () => {
    const { nodes, mem, f } = setup(2, { rf: 2 });
    mem(0).add(T, m('a'), 1, 1);
    mem(1).add(T, m('a'), 1, 1);
    expect(await f.forRequest().deleteSeries(Q(), signal())).toBe(2);
    mem(0).add(T, m('b'), 1, 1);
    nodes[1]!.setMode(DOWN);
    const err = await f.forRequest().deleteSeries(Q(), signal()).catch((e: unknown) => e);
    expect((err as ApiError).status).toBe(503);
    expect((err as Error).message).toMatch(/^cannot delete series on every storage node \(s1:8401: /);
  });

  it('lists the tenants of every node', async () => {
    const { mem, f } = setup(2);
    await mem(0).addRows({ accountID: 5, projectID: 1 }, [{ labels: m('a'), timestamp: 1, value: 1 }]);
    await mem(1).addRows(T, [{ labels: m('a'), timestamp: 1, value: 1 }]);
    expect(await f.forRequest().listTenants({ minTimestamp: 0, maxTimestamp: 10 }, signal())).toEqual([T, { accountID: 5, projectID: 1 }]);
  });
});
