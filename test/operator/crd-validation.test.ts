import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { load } from 'js-yaml';
import { describe, expect, it } from 'vitest';
import { crdFiles } from '../../operator/api/crd.ts';
import { BAD_EXAMPLES, docExamples, fixtureExamples, TRANSITIONS } from '../k8s/crd-examples.ts';
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
    const examples: Obj[] = [...docExamples(), ...fixtureExamples().map((f) => f.example)];
    expect(examples.length).toBeGreaterThanOrEqual(12);
    const kinds = new Set(examples.map((e) => e.kind));
    expect([...kinds].sort()).toEqual(['AuthProxy', 'AuthProxyUser', 'TSDBCluster', 'TSDBGateway', 'TSDBSingle']);
    for (const e of examples) {
      const res = admit(e);
      expect(res.ok ? [] : res.errors, `${e.kind} ${e.metadata.name}`).toEqual([]);
    }
  });

  it('rejects each bad example with the message the real API server gives', () => {
    for (const { kind, spec, want } of BAD_EXAMPLES) {
      const res = admit({ apiVersion: 'strata.dev/v1beta1', kind, metadata: { name: 'x', namespace: 'm' }, spec });
      expect(res.ok, `${kind} ${JSON.stringify(spec)} should be rejected`).toBe(false);
      if (!res.ok) expect(res.errors.join('; ')).toMatch(want);
    }
  });

  it('rejects changes that a StatefulSet cannot take (transition rules)', () => {
    const single = (spec: unknown): Obj => ({ apiVersion: 'strata.dev/v1beta1', kind: 'TSDBSingle', metadata: { name: 's', namespace: 'm' }, spec });
    for (const { from, to, want } of TRANSITIONS) {
      const res = admit(single(to), single(from));
      if (want === undefined) expect(res.ok ? [] : res.errors).toEqual([]);
      else expect(res.ok ? '' : res.errors.join('; ')).toMatch(want);
    }
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
