// Prometheus' PromQL test scripts (test/conformance, corpus in ../shared/conformance) evaluated
// through the select node's fan-out over two in-memory storage nodes, with the loaded samples
// spread the ways a cluster spreads them. Every layout must give the single node's results.

import { describe, expect, it } from 'vitest';
import { Placement, seriesHash } from '../../src/app/insert/cluster/placement.ts';
import { FanoutStorage } from '../../src/app/select/cluster/fanout.ts';
import { MemorySearcher } from '../../src/lib/query/index.ts';
import { type Labels, type Tenant } from '../../src/lib/storageapi/index.ts';
import { formatTable, MAIN_DIR, passRate, runDirectory, totals } from '../conformance/corpus.ts';
import { type FileReport, type ScriptStore } from '../conformance/runner.ts';

const NAMES = ['s0:8401', 's1:8401'];
const placement = new Placement(NAMES);

/**
 * Layout places one sample on nodes: `split` puts each series on one node (factor 1, as the shard
 * router does); `rerouted` puts every sample on its series' first node and every other sample on
 * the second too (factor 2 with the second replica out of rotation half the time), so series are
 * both split and duplicated between the nodes.
 */
type Layout = 'split' | 'rerouted';

function clusterStore(layout: Layout): () => ScriptStore {
  return () => {
    const nodes = [new MemorySearcher(), new MemorySearcher()];
    const fanout = new FanoutStorage({ nodes: nodes.map((api, i) => ({ name: NAMES[i]!, api })), replicationFactor: 1, denyPartialResponse: true, nodeTimeoutMs: 60_000, dedupMs: 0, now: Date.now });
    const rank = new Uint8Array(2);
    return {
      add(tenant: Tenant, labels: Labels, timestamp: number, value: number) {
        placement.rank(seriesHash(tenant, labels), rank);
        nodes[rank[0]!]!.add(tenant, labels, timestamp, value);
        if (layout === 'rerouted' && Math.floor(timestamp / 1000) % 2 === 0) nodes[rank[1]!]!.add(tenant, labels, timestamp, value);
      },
      clear() {
        for (const n of nodes) n.clear();
      },
      searcher: fanout.forRequest(),
    };
  };
}

const failures = (reports: readonly FileReport[]) => reports.flatMap((r) => r.failures.map((f) => `${r.file}:${f.line} ${f.query}`));

describe('PromQL conformance through the cluster fan-out', () => {
  it('gives the single node\'s results whether series are split between nodes or split and duplicated', async () => {
    const single = await runDirectory(MAIN_DIR);
    for (const layout of ['split', 'rerouted'] as const) {
      const reports = await runDirectory(MAIN_DIR, { store: clusterStore(layout) });
      console.log(formatTable(`prometheus-main through the fan-out, ${layout}`, reports));
      for (const f of failures(reports)) console.log(`differs: ${f}`);
      expect(totals(reports)).toEqual(totals(single));
      expect(failures(reports)).toEqual(failures(single));
      expect(passRate(totals(reports))).toBe(1);
    }
  }, 240_000);
});
