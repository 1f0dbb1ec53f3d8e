import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { load, loadAll } from 'js-yaml';
import { beforeAll, describe, expect, it } from 'vitest';
import { crdFiles } from '../../operator/api/crd.ts';
import { validateK8sObject } from '../../operator/k8s/fake/schemas.ts';
import { grants, PERMISSIONS } from '../../operator/rbac.ts';
import type { PolicyRule } from '../../operator/rbac.ts';
import { CrdValidator } from '../k8s/crd-validator.ts';
import type { CrdLike } from '../k8s/crd-validator.ts';
import { helm, helmBinary } from './helm.ts';

// The chart is linted and rendered by the real helm binary for every values file; rendered
// objects must pass the Kubernetes schemas, custom resources the CRD schemas, and the RBAC
// rules must be exactly what operator/rbac.ts says the code uses.
const ROOT = join(import.meta.dirname, '..', '..');
const CHART = join(ROOT, 'charts', 'strata-operator');
const VALUES = readdirSync(join(import.meta.dirname, 'values')).filter((f) => f.endsWith('.yaml')).sort();
type Obj = { apiVersion: string; kind: string; metadata: { name: string; namespace?: string }; rules?: PolicyRule[]; spec?: Record<string, unknown> };

const render = (valuesFile: string, extra: string[] = []): Obj[] =>
  (loadAll(helm(['template', 'rel', CHART, '--namespace', 'strata-system', '--include-crds', '-f', join(import.meta.dirname, 'values', valuesFile), ...extra])) as (Obj | null)[]).filter((o): o is Obj => o !== null);

const validators = new Map<string, CrdValidator>();
beforeAll(() => {
  helmBinary();
  for (const [, text] of crdFiles()) {
    const crd = load(text) as CrdLike;
    validators.set(crd.spec.names.kind, new CrdValidator(crd));
  }
});

const operatorFlags = (() => {
  const help = execFileSync(process.execPath, [join(ROOT, 'src', 'cmd', 'operator.ts'), '-help'], { encoding: 'utf8' });
  return new Set([...help.matchAll(/^\s+-([A-Za-z0-9._]+)\s/gm)].map((m) => m[1]!));
})();

describe('charts/strata-operator', () => {
  it.each(VALUES)('passes helm lint --strict with %s', (file) => {
    expect(helm(['lint', '--strict', CHART, '-f', join(import.meta.dirname, 'values', file)])).toMatch(/1 chart\(s\) linted, 0 chart\(s\) failed/);
  });

  it.each(VALUES)('renders valid Kubernetes objects and custom resources with %s', (file) => {
    const objects = render(file);
    expect(objects.length).toBeGreaterThan(5);
    for (const o of objects) {
      if (o.apiVersion === 'strata.dev/v1beta1') {
        const res = validators.get(o.kind)!.admit(o);
        expect(res.ok ? [] : res.errors, `${o.kind} ${o.metadata.name}`).toEqual([]);
      } else {
        expect(validateK8sObject(o), `${o.kind} ${o.metadata.name}`).toBeUndefined();
      }
    }
    // The chart ships the generated CRDs unchanged.
    const crds = objects.filter((o) => o.kind === 'CustomResourceDefinition').map((o) => o.metadata.name).sort();
    expect(crds).toEqual([...crdFiles().keys()].map((f) => f.replace(/\.yaml$/, '')).sort());
  });

  it.each(VALUES)('grants exactly the permissions the operator code uses with %s', (file) => {
    const objects = render(file);
    const leader = !file.startsWith('example-cluster');
    const rules = objects.filter((o) => o.kind === 'ClusterRole' || o.kind === 'Role').flatMap((o) => o.rules ?? []);
    const want = grants(PERMISSIONS).filter((g) => leader || !g.includes('/leases'));
    expect([...new Set(grants(rules))].sort()).toEqual(want);
    // With watchNamespaces, namespaced rights live in Roles of exactly those namespaces.
    const values = load(readFileSync(join(import.meta.dirname, 'values', file), 'utf8')) as { watchNamespaces?: string[] } | null;
    const cluster = objects.find((o) => o.kind === 'ClusterRole')!;
    if (values?.watchNamespaces !== undefined) {
      expect(grants(cluster.rules!)).toEqual(['list /namespaces', 'watch /namespaces']);
      const roleNamespaces = objects.filter((o) => o.kind === 'Role' && !o.metadata.name.endsWith('-leader-election')).map((o) => o.metadata.namespace).sort();
      expect(roleNamespaces).toEqual([...values.watchNamespaces].sort());
    }
  });

  it.each(VALUES)('passes only flags the operator binary knows with %s', (file) => {
    const dep = render(file).find((o) => o.kind === 'Deployment')!;
    const args = (dep.spec as { template: { spec: { containers: { args: string[] }[] } } }).template.spec.containers[0]!.args;
    const unknown = args.map((a) => /^-([^=]+)=/.exec(a)?.[1]).filter((n) => n === undefined || !operatorFlags.has(n));
    expect(unknown).toEqual([]);
  });

  it('rejects values that break values.schema.json or the chart rules', () => {
    const f = (set: string[], want: RegExp) => expect(() => render('default.yaml', set.flatMap((s) => ['--set', s]))).toThrow(want);
    f(['replicaCount=-1'], /replicaCount|minimum/);
    f(['workers=0'], /workers|minimum/);
    f(['log.level=DEBUG'], /log\.level|value must be one of|enum/);
    f(['unknownKey=1'], /additional properties|unknownKey/);
    f(['watchNamespaces[0]=Bad_NS'], /pattern|watchNamespaces/);
    f(['replicaCount=2', 'leaderElection.enabled=false'], /needs leaderElection/);
  });
});
