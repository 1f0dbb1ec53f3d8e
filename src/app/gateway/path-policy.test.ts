import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { normalizeRequestPath, PathError } from '../../lib/httpproxy/index.ts';
import { routeFor } from './path-policy.ts';

const T = { accountID: 12, projectID: 3 };

function resolve(raw: string) {
  const r = routeFor(normalizeRequestPath(raw));
  return r === undefined ? undefined : { kind: r.kind, single: r.single, cluster: r.clusterPath(T) };
}

describe('routeFor', () => {
  it('forwards the read APIs to /select/<acc>:<proj>/…', () => {
    const f = (raw: string, single: string, cluster: string) => expect(resolve(raw)).toEqual({ kind: 'read', single, cluster });
    f('/api/v1/query', '/api/v1/query', '/select/12:3/prometheus/api/v1/query');
    f('/prometheus/api/v1/query_range', '/prometheus/api/v1/query_range', '/select/12:3/prometheus/api/v1/query_range');
    f('/api/v1/series', '/api/v1/series', '/select/12:3/prometheus/api/v1/series');
    f('/api/v1/series/count', '/api/v1/series/count', '/select/12:3/prometheus/api/v1/series/count');
    f('/api/v1/labels', '/api/v1/labels', '/select/12:3/prometheus/api/v1/labels');
    f('/api/v1/label/job/values', '/api/v1/label/job/values', '/select/12:3/prometheus/api/v1/label/job/values');
    f('/prometheus/api/v1/label/__name__/values', '/prometheus/api/v1/label/__name__/values', '/select/12:3/prometheus/api/v1/label/__name__/values');
    f('/api/v1/label/a%20b/values', '/api/v1/label/a%20b/values', '/select/12:3/prometheus/api/v1/label/a%20b/values');
    f('/api/v1/status/tsdb', '/api/v1/status/tsdb', '/select/12:3/prometheus/api/v1/status/tsdb');
    f('/api/v1/export', '/api/v1/export', '/select/12:3/prometheus/api/v1/export');
    f('/api/v1/export/csv', '/api/v1/export/csv', '/select/12:3/prometheus/api/v1/export/csv');
    f('/api/v1/export/native', '/api/v1/export/native', '/select/12:3/prometheus/api/v1/export/native');
    f('/federate', '/federate', '/select/12:3/prometheus/federate');
    f('/graphite/metrics/find', '/graphite/metrics/find', '/select/12:3/graphite/metrics/find');
    f('/metrics/find', '/metrics/find', '/select/12:3/graphite/metrics/find');
    f('/api/v1/status/buildinfo', '/api/v1/status/buildinfo', '/select/12:3/prometheus/api/v1/status/buildinfo');
    f('/api/v1/format_query', '/api/v1/format_query', '/select/12:3/prometheus/api/v1/format_query');
    f('/api/v1/query_exemplars', '/api/v1/query_exemplars', '/select/12:3/prometheus/api/v1/query_exemplars');
    // spelled oddly, the same path after normalization
    f('//api/v1/./query', '/api/v1/query', '/select/12:3/prometheus/api/v1/query');
    f('/api/v1/%71uery', '/api/v1/query', '/select/12:3/prometheus/api/v1/query');
    f('/x/../api/v1/query', '/api/v1/query', '/select/12:3/prometheus/api/v1/query');
  });

  it('forwards the write APIs to /insert/<acc>:<proj>/<format>/…', () => {
    const f = (raw: string, cluster: string) => expect(resolve(raw)).toEqual({ kind: 'write', single: raw, cluster });
    f('/api/v1/write', '/insert/12:3/prometheus/api/v1/write');
    f('/api/v1/import', '/insert/12:3/prometheus/api/v1/import');
    f('/api/v1/import/csv', '/insert/12:3/prometheus/api/v1/import/csv');
    f('/api/v1/import/native', '/insert/12:3/prometheus/api/v1/import/native');
    f('/api/v1/import/prometheus', '/insert/12:3/prometheus/api/v1/import/prometheus');
    f('/prometheus/api/v1/import/prometheus', '/insert/12:3/prometheus/api/v1/import/prometheus');
    f('/write', '/insert/12:3/influx/write');
    f('/influx/write', '/insert/12:3/influx/write');
    f('/api/v2/write', '/insert/12:3/influx/api/v2/write');
    f('/agentfmt/api/v1/series', '/insert/12:3/agentfmt/api/v1/series');
  });

  it('does not forward admin, internal, snapshot or cluster-form paths, however spelled', () => {
    const f = (raw: string) => expect(resolve(raw)).toBeUndefined();
    f('/');
    f('/api/v1/admin/tsdb/delete_series');
    f('/prometheus/api/v1/admin/tsdb/delete_series');
    f('/internal/resetRollupResultCache');
    f('/snapshot/create');
    f('/snapshot/delete_all');
    f('/select/5:0/prometheus/api/v1/query');
    f('/select/5/prometheus/api/v1/query');
    f('/insert/5:0/prometheus/api/v1/write');
    f('/delete/5:0/prometheus/api/v1/admin/tsdb/delete_series');
    f('/api/v1/query/');
    f('/api/v1/query/../../../select/5:0/prometheus/api/v1/query');
    f('/api/v1/label/x%2f..%2f..%2f..%2fselect%2f5/values');
    f('/api/v1/label/%2e%2e/values/../../../../internal/resetRollupResultCache');
    f('/api/v1/label//values');
    f('/api/v1/label/a/b/values');
    f('/API/V1/QUERY');
    f('/metrics');
    f('/health');
    f('/api/v1/status/top_queries');
    f('/api/v1/status/active_queries');
    f('/api/v1/metadata');
    f('/api/v1/rules');
    f('/api/v1/alerts');
  });

  it('never yields a path outside the table for any input (fuzz)', () => {
    const alphabet = fc.constantFrom('/', '.', '..', '%2f', '%2F', '%2e', '%25', 'api', 'v1', 'label', 'values', 'select', 'insert', 'admin', 'query', 'prometheus', 'x', '5:0', '//', '?', ';', '%', '%zz');
    fc.assert(fc.property(fc.array(alphabet, { maxLength: 20 }), (parts) => {
      const raw = `/${parts.join('')}`;
      let r;
      try {
        r = resolve(raw);
      } catch (err) {
        expect(err).toBeInstanceOf(PathError);
        return;
      }
      if (r === undefined) return;
      expect(r.cluster).toMatch(/^\/(select|insert)\/12:3\/(prometheus|graphite|influx|agentfmt)\/(api\/v1|api\/v2|write|federate|metrics)/);
      expect(r.cluster).not.toMatch(/\/\.\.?(\/|$)|\/\/|%2f|admin|internal|snapshot|delete/i);
      expect(r.single.startsWith('/')).toBe(true);
    }), { numRuns: 5000 });
  });
});
