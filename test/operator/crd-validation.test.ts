import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { load, loadAll } from 'js-yaml';
import { describe, expect, it } from 'vitest';
import { crdFiles } from '../../operator/api/crd.ts';
import { strataExamples } from '../../operator/factory/fixtures.test-helpers.ts';
import { CrdValidator } from '../k8s/crd-validator.ts';
import type { CrdLike } from '../k8s/crd-validator.ts';

// What `kubectl apply -f crds/` would install, checked offline: the OpenAPI schema with ajv and
// the x-kubernetes-validations rules with our CEL evaluator (including transition rules).
const ROOT = join(import.meta.dirname, '..', '..');
const validators = new Map<string, CrdValidator>();
for (const name of readdirSync(join(ROOT, 'crds')).filter((f) => f.endsWith('.yaml'))) {
  const crd = load(readFileSync(join(ROOT, 'crds', name), 'utf8')) as CrdLike;
  validators.set(crd.spec.names.kind, new CrdValidator(crd));
}
type Obj = { apiVersion: string; kind: string; metadata: { name: string; namespace?: string }; spec?: unknown };
const admit = (obj: Obj, old?: Obj) => validators.get(obj.kind)!.admit(obj, old);

describe('CRD validation offline', () => {
  it('compiles every CEL rule of the checked-in CRDs, which match operator/api', () => {
    expect([...validators.keys()].sort()).toEqual(['AuthProxy', 'AuthProxyUser', 'TSDBCluster', 'TSDBGateway', 'TSDBSingle']);
    expect(crdFiles().size).toBe(5);
  });

  it('accepts every example in docs/, the builder fixtures and the chart example stack', () => {
    const examples = [
      ...(strataExamples(readFileSync(join(ROOT, 'docs', 'operator.md'), 'utf8')) as Obj[]),
      ...readdirSync(join(ROOT, 'operator/factory/testdata'))
        .filter((f) => f.endsWith('.yaml') && !f.endsWith('.golden.yaml'))
        .flatMap((f) => loadAll(readFileSync(join(ROOT, 'operator/factory/testdata', f), 'utf8')) as Obj[]),
    ];
    expect(examples.length).toBeGreaterThanOrEqual(12);
    const kinds = new Set(examples.map((e) => e.kind));
    expect([...kinds].sort()).toEqual(['AuthProxy', 'AuthProxyUser', 'TSDBCluster', 'TSDBGateway', 'TSDBSingle']);
    for (const e of examples) {
      const res = admit(e);
      expect(res.ok ? [] : res.errors, `${e.kind} ${e.metadata.name}`).toEqual([]);
    }
  });

  it('rejects each bad example with a message saying why', () => {
    const f = (spec: unknown, kind: string, want: RegExp) => {
      const res = admit({ apiVersion: 'strata.dev/v1beta1', kind, metadata: { name: 'x', namespace: 'm' }, spec });
      expect(res.ok, `${kind} ${JSON.stringify(spec)} should be rejected`).toBe(false);
      if (!res.ok) expect(res.errors.join('; ')).toMatch(want);
    };
    const gw = { eula: true, target: { ref: { kind: 'TSDBCluster', name: 'c' } } };
    // Gateway
    f({ target: gw.target }, 'TSDBGateway', /eula: true/);
    f({ eula: true, target: { ref: gw.target.ref, readURL: 'http://a', writeURL: 'http://b' } }, 'TSDBGateway', /either ref or both readURL and writeURL|mutually exclusive/);
    f({ eula: true, target: { readURL: 'http://a' } }, 'TSDBGateway', /either ref or both/);
    f({ ...gw, rateLimit: { enabled: true } }, 'TSDBGateway', /datasourceURL/);
    f({ eula: true, target: { ref: { kind: 'TSDBSingle', name: 's' } }, rateLimit: { enabled: true, datasourceURL: 'http://d' } }, 'TSDBGateway', /only in front of a cluster/);
    f({ ...gw, rateLimit: { limits: [{ type: 'bytes', value: 1 }] } }, 'TSDBGateway', /allowed values/);
    f({ ...gw, auth: { publicKeys: [{ secretKeyRef: { name: 'a', key: 'k' }, configMapKeyRef: { name: 'b', key: 'k' } }] } }, 'TSDBGateway', /exactly one of secretKeyRef/);
    f({ ...gw, target: { ref: { kind: 'TSDBSingle', name: 's' }, clusterMode: true } }, 'TSDBGateway', /clusterMode contradicts/);
    // Cluster
    f({ replicationFactor: 3, storage: { replicas: 2 } }, 'TSDBCluster', /replicationFactor cannot exceed/);
    f({ storage: { podDisruptionBudget: { minAvailable: 1, maxUnavailable: 1 } } }, 'TSDBCluster', /exactly one of minAvailable and maxUnavailable/);
    f({ select: { horizontalPodAutoscaler: { minReplicas: 5, maxReplicas: 2, targetCPUUtilizationPercentage: 50 } } }, 'TSDBCluster', /minReplicas must not exceed/);
    f({ insert: { horizontalPodAutoscaler: { maxReplicas: 2 } } }, 'TSDBCluster', /CPU or a memory/);
    f({ insert: { replicas: -1 } }, 'TSDBCluster', /must be >= 0/);
    f({ insert: { service: { type: 'ExternalName' } } }, 'TSDBCluster', /allowed values/);
    f({ storage: { backup: { destination: 'ftp://host/x' } } }, 'TSDBCluster', /must match pattern/);
    // Single
    f({ backup: { concurrency: 2 } }, 'TSDBSingle', /destination/);
    f({ backup: { destination: 'gs://b/p', customS3Endpoint: 'http://minio:9000' } }, 'TSDBSingle', /customS3Endpoint applies only to s3/);
    f({ backup: { destination: 'fs://relative/path' } }, 'TSDBSingle', /fs destinations are absolute/);
    f({ retentionPeriod: '3x' }, 'TSDBSingle', /must match pattern/);
    f({ resources: { limits: { memory: '2GB' } } }, 'TSDBSingle', /must match pattern/);
    f({ extraArgs: { '-retentionPeriod': '1' } }, 'TSDBSingle', /without leading dashes/);
    f({ extraEnv: [{ name: 'A', value: '1', valueFrom: { fieldRef: { fieldPath: 'metadata.name' } } }] }, 'TSDBSingle', /mutually exclusive/);
    // AuthProxy and users
    f({ ipFilters: { allowList: ['10.0.0.0/8'] } }, 'AuthProxy', /enterprise feature/);
    f({ userSelector: { matchExpressions: [{ key: 'a', operator: 'In' }] } }, 'AuthProxy', /values must be non-empty/);
    f({ unauthorizedUser: { headers: ['X-A: b'] } }, 'AuthProxy', /needs targets, urlMap or defaultURL/);
    f({ username: 'u', bearerTokenRef: { name: 's', key: 't' }, defaultURL: ['http://x'] }, 'AuthProxyUser', /either username/);
    f({ passwordRef: { name: 's', key: 'p' }, bearerTokenRef: { name: 's', key: 't' }, defaultURL: ['http://x'] }, 'AuthProxyUser', /passwordRef needs username/);
    f({ username: 'u' }, 'AuthProxyUser', /needs targets, urlMap or defaultURL/);
    f({ username: 'u', targets: [{ url: 'http://x', ref: { kind: 'TSDBSingle', name: 's' } }] }, 'AuthProxyUser', /exactly one of url and ref/);
    f({ username: 'u', targets: [{ ref: { kind: 'TSDBCluster', name: 'c' } }] }, 'AuthProxyUser', /needs component/);
    f({ username: 'u', targets: [{ url: 'http://x', component: 'insert' }] }, 'AuthProxyUser', /component applies only/);
    f({ username: 'u', headers: ['no colon'], defaultURL: ['http://x'] }, 'AuthProxyUser', /must match pattern/);
  });

  it('rejects changes that a StatefulSet cannot take (transition rules)', () => {
    const single = (spec: unknown): Obj => ({ apiVersion: 'strata.dev/v1beta1', kind: 'TSDBSingle', metadata: { name: 's', namespace: 'm' }, spec });
    const f = (oldSpec: unknown, newSpec: unknown, want: RegExp | undefined) => {
      const res = admit(single(newSpec), single(oldSpec));
      if (want === undefined) expect(res.ok ? [] : res.errors).toEqual([]);
      else expect(res.ok ? '' : res.errors.join('; ')).toMatch(want);
    };
    f({ storage: { size: '10Gi' } }, { storage: { size: '20Gi' } }, /immutable/);
    f({}, { storage: { size: '10Gi' } }, /cannot be added or removed/);
    f({ storage: { size: '10Gi' } }, {}, /cannot be added or removed/);
    f({ storage: { size: '10Gi' } }, { storage: { size: '10Gi' }, retentionPeriod: '2' }, undefined);
    // Creation with storage is fine: transition rules need an old object.
    expect(admit(single({ storage: { size: '10Gi' } })).ok).toBe(true);
  });

  it('prunes unknown fields and fills defaults, as the API server does', () => {
    const res = admit({ apiVersion: 'strata.dev/v1beta1', kind: 'TSDBCluster', metadata: { name: 'c' }, spec: { storage: { replicas: 3, typo: true } } });
    expect(res.ok).toBe(true);
    if (!res.ok) return;
    const spec = res.object['spec'] as { storage: Record<string, unknown>; select: { replicas: number }; replicationFactor: number };
    expect(spec.storage).not.toHaveProperty('typo');
    expect(spec.select.replicas).toBe(2);
    expect(spec.replicationFactor).toBe(1);
  });
});
