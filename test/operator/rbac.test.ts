import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BUILTIN } from '../../operator/k8s/resources.ts';
import type { ResourceType } from '../../operator/k8s/resources.ts';
import type { KubeObject } from '../../operator/k8s/types.ts';
import { grants, PERMISSIONS } from '../../operator/rbac.ts';
import { cr, Env, NS, podImage, REAL_CRS } from './harness.ts';

// The fake API server enforces PERMISSIONS for the operator's token (anything else is a 403)
// and records every request, also those it forwards to the real API server in mode real-crs.
// This scenario makes the operator use each permission once, so the rules are both sufficient
// and minimal.
let env: Env;

function stray(type: ResourceType, name: string, owner: KubeObject, body: Record<string, unknown>): void {
  env.store.create(type, {
    apiVersion: type.group === '' ? type.version : `${type.group}/${type.version}`,
    kind: type.kind,
    metadata: { name, namespace: NS, labels: { 'app.kubernetes.io/managed-by': 'strata-operator' }, ownerReferences: [{ apiVersion: owner.apiVersion, kind: owner.kind, name: owner.metadata.name!, uid: owner.metadata.uid!, controller: true }] },
    ...body,
  });
}

describe.each(REAL_CRS)('operator RBAC (custom resources: %s)', { timeout: 90_000 }, (mode) => {
  beforeAll(async () => {
    env = await new Env({ mode }).start();
    env.operator();
  });
  afterAll(async () => env.stop());

  it('uses exactly the permissions the chart grants', async () => {
    const spec = { storage: { replicas: 2, podDisruptionBudget: { maxUnavailable: 1 } }, select: { replicas: 1, horizontalPodAutoscaler: { maxReplicas: 3, targetCPUUtilizationPercentage: 80 } }, insert: { replicas: 1 } };
    await env.apply(cr('TSDBCluster', 'c', spec));
    await env.apply(cr('TSDBGateway', 'g', { eula: true, target: { ref: { kind: 'TSDBCluster', name: 'c' } }, rateLimit: { enabled: true, datasourceURL: 'http://ds:8481', limits: [{ type: 'queries', value: 10 }] } }));
    await env.apply(cr('TSDBSingle', 's', {}));
    await env.apply(cr('AuthProxy', 'p', { userSelector: {} }));
    await env.apply(cr('AuthProxyUser', 'u', { username: 'u', defaultURL: ['http://x'] }));
    const all = [{ kind: 'TSDBCluster', name: 'c' }, { kind: 'TSDBSingle', name: 's' }, { kind: 'TSDBGateway', name: 'g' }, { kind: 'AuthProxy', name: 'p' }];
    await env.waitFor('all Ready', async () => (await env.allReady(all)) && (await env.phase('AuthProxyUser', 'u')) === 'Accepted');
    // Optional children go away when disabled (delete of PDB, HPA, ConfigMap).
    await env.apply(cr('TSDBCluster', 'c', { ...spec, image: { tag: '2' }, storage: { replicas: 2 }, select: { replicas: 1 } }));
    await env.apply(cr('TSDBGateway', 'g', { eula: true, target: { ref: { kind: 'TSDBCluster', name: 'c' } } }));
    await env.waitFor('rolled out and pruned', async () => podImage(env.store.get(BUILTIN.deployment, { namespace: NS, name: 'tsdb-insert-c' })) === 'strata/tsdb:2' && (await env.ready('TSDBCluster', 'c')) && env.store.get(BUILTIN.configMap, { namespace: NS, name: 'tsdb-gateway-g-ratelimit' }) === undefined);
    // Children an older operator version created under other names are pruned too.
    const owner = (await env.cr('TSDBCluster', 'c'))!;
    const template = { metadata: { labels: { x: 'old' } }, spec: { containers: [{ name: 'c', image: 'img' }] } };
    stray(BUILTIN.statefulSet, 'old-sts', owner, { spec: { serviceName: 'old', selector: { matchLabels: { x: 'old' } }, template, replicas: 0 } });
    stray(BUILTIN.deployment, 'old-dep', owner, { spec: { selector: { matchLabels: { x: 'old' } }, template, replicas: 0 } });
    stray(BUILTIN.service, 'old-svc', owner, { spec: { ports: [{ port: 80 }] } });
    stray(BUILTIN.serviceAccount, 'old-sa', owner, {});
    stray(BUILTIN.secret, 'old-secret', owner, {});
    const gone = () => [BUILTIN.statefulSet, BUILTIN.deployment, BUILTIN.service, BUILTIN.serviceAccount, BUILTIN.secret].every((t) => env.store.list(t, { namespace: NS }).items.every((o) => !o.metadata.name!.startsWith('old-')));
    await env.waitFor('strays pruned', gone);
    const granted = grants(PERMISSIONS);
    const used = [...env.server.audit].sort();
    expect(used.filter((u) => !granted.includes(u)), 'requests outside the granted rules').toEqual([]);
    expect(granted.filter((g) => !used.includes(g)), 'granted rules the operator never used').toEqual([]);
  });
});
