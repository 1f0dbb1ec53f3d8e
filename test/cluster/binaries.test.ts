// tsdb-insert and tsdb-select as processes, without a working storage node: their own flags in
// -help, start-up errors for flags that do not fit, the operational endpoints, and the answers a
// client gets when no storage node can be reached (503 naming the nodes, never a hang).

import { afterAll, describe, expect, it } from 'vitest';
import { runProcess } from '../e2e/process-harness.ts';
import { killAll } from '../tsdb/harness.ts';
import { type Server, startInsert, startSelect, type StorageNode } from './harness.ts';

afterAll(killAll);

// Loopback ports nobody listens on: dialing them is refused at once.
const NOWHERE = [1, 2].map((i): StorageNode => ({ insertAddr: `127.0.0.1:${i}`, selectAddr: `127.0.0.1:${i}` } as StorageNode));

describe('tsdb-insert and tsdb-select binaries', () => {
  it('document their cluster flags in -help', async () => {
    const f = async (binary: string, want: string[]) => {
      const r = await runProcess(`src/cmd/${binary}.ts`, ['-help']);
      expect(r.code).toBe(0);
      for (const flag of want) expect(r.output, `${binary} -help`).toMatch(new RegExp(`^\\s*-${flag.replace('.', '\\.')}\\b`, 'm'));
    };
    await f('tsdb-insert', ['storageNode', 'replicationFactor', 'storageNode.timeout', 'defaultTenantID', 'maxInsertRequestSize', 'graphiteListenAddr', 'opentsdbHTTPListenAddr']);
    await f('tsdb-select', ['storageNode', 'replicationFactor', 'storageNode.timeout', 'search.denyPartialResponse', 'dedup.minScrapeInterval', 'search.maxQueryDuration']);
  }, 120_000);

  it('refuse to start, status 2 and one line, without storage nodes or with a factor above their count', async () => {
    const f = async (binary: string, args: string[], want: RegExp) => {
      const r = await runProcess(`src/cmd/${binary}.ts`, ['-httpListenAddr=127.0.0.1:0', ...args]);
      expect(r.code, r.output).toBe(2);
      expect(r.output).toMatch(want);
    };
    await f('tsdb-insert', [], /-storageNode is required/);
    await f('tsdb-select', ['-storageNode=a:1,b:1', '-replicationFactor=3'], /-replicationFactor=3 needs at least 3 storage nodes; -storageNode lists 2/);
    await f('tsdb-insert', ['-storageNode=a:1,a:1'], /storage node a:1 is given twice/);
    await f('tsdb-insert', ['-storageNode=http://a:1'], /invalid storage node address/);
  }, 120_000);

  describe('with every storage node unreachable', () => {
    let insert: Server;
    let select: Server;

    it('start, and serve /health, /metrics and /flags', async () => {
      [insert, select] = await Promise.all([
        startInsert(NOWHERE, ['-replicationFactor=2', '-storageNode.timeout=1s']),
        startSelect(NOWHERE, ['-replicationFactor=2', '-storageNode.timeout=1s']),
      ]);
      for (const s of [insert, select]) {
        expect((await fetch(`${s.base}/health`)).status).toBe(200);
        expect(await (await fetch(`${s.base}/flags`)).text()).toContain('-storageNode="127.0.0.1:1,127.0.0.1:2"');
        expect((await fetch(`${s.base}/debug/pprof/`)).status).toBe(200);
      }
    }, 120_000);

    it('answer writes 503 naming the nodes, and reads 503 saying no node answered', async () => {
      const w = await fetch(`${insert.base}/insert/0/prometheus/api/v1/import/prometheus`, { method: 'POST', body: 'up 1' });
      expect(w.status).toBe(503);
      const text = await w.text();
      expect(text).toMatch(/^cannot store 1 of 1 rows: no storage node accepted them \(/);
      expect(text).toContain('127.0.0.1:1');
      expect(text).toContain('127.0.0.1:2');
      const started = performance.now();
      const r = await fetch(`${select.base}/select/0/prometheus/api/v1/query?query=up`);
      expect(performance.now() - started).toBeLessThan(5000);
      expect(r.status).toBe(503);
      expect(await r.json()).toMatchObject({ status: 'error', errorType: 'unavailable', error: expect.stringContaining('no storage node answered') });
      const metrics = await (await fetch(`${insert.base}/metrics`)).text();
      expect(metrics).toContain('tsdb_storage_node_up{node="127.0.0.1:1"} 0');
      expect(metrics).toMatch(/tsdb_storage_node_rows_rerouted_total\{node="127\.0\.0\.1:[12]"\} 1/);
      // Calls themselves are counted by the RPC client: errors by reason, latency.
      expect(metrics).toMatch(/^tsdb_rpc_client_request_errors_total\{node="127\.0\.0\.1:1",[^}]*\} 1$/m);
      expect(metrics).toMatch(/^tsdb_rpc_client_request_duration_seconds_count\{node="127\.0\.0\.1:1",[^}]*\} 1$/m);
      const selectMetrics = await (await fetch(`${select.base}/metrics`)).text();
      expect(selectMetrics).toContain('tsdb_tenant_select_requests_total{accountID="0",projectID="0"} 1');
      expect(selectMetrics).toContain('tsdb_select_partial_responses_total 1');
    }, 60_000);
  });
});
