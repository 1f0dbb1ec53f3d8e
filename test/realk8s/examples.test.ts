import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { load, loadAll } from 'js-yaml';
import { beforeAll, describe, expect, it } from 'vitest';
import { crdFiles } from '../../operator/api/crd.ts';
import { defaultedSpec } from '../../operator/api/defaulted.ts';
import { resourcePath } from '../../operator/k8s/rest-client.ts';
import { CUSTOM } from '../../operator/k8s/resources.ts';
import type { KubeObject } from '../../operator/k8s/types.ts';
import { helm } from '../helm/helm.ts';
import { BAD_EXAMPLES, docExamples, fixtureExamples, strataObjects, TRANSITIONS } from '../k8s/crd-examples.ts';
import type { Example } from '../k8s/crd-examples.ts';
import { CrdValidator } from '../k8s/crd-validator.ts';
import type { CrdLike } from '../k8s/crd-validator.ts';
import { invalidLines } from './client.ts';
import { realCrdServer } from './crds.ts';
import type { RealCrdServer } from './crds.ts';

// Every custom resource we show users or feed the builders is server-side applied to the real
// API server: it must be accepted, and the defaults the server fills in must be exactly those of
// the operator's own defaulting (operator/api defaultedSpec) and of the fake API server, so the
// builders see the same spec whichever of them the resource went through. Every bad example of
// the tests must be refused with the message the tests expect.
const CHART = join(import.meta.dirname, '..', '..', 'charts', 'strata-operator');
const VALUES = join(import.meta.dirname, '..', 'helm', 'values');
const MANAGER = 'strata-realk8s-test';
let real: RealCrdServer;
const fake = new Map<string, CrdValidator>();

beforeAll(async () => {
  real = await realCrdServer();
  for (const [, text] of crdFiles()) {
    const crd = load(text) as CrdLike;
    fake.set(crd.spec.names.kind, new CrdValidator(crd));
  }
});

const path = (kind: string, namespace: string, name?: string) => resourcePath(CUSTOM[kind]!, namespace, name);

/** chartExamples renders the chart with each values file of test/helm/values, by values file. */
function chartExamples(): { file: string; example: Example }[] {
  return readdirSync(VALUES)
    .filter((f) => f.endsWith('.yaml'))
    .sort()
    .flatMap((file) => strataObjects(loadAll(helm(['template', 'rel', CHART, '--namespace', 'strata-system', '-f', join(VALUES, file)]))).map((example) => ({ file, example })));
}

/** applyExample server-side applies an example in `namespace`, as `kubectl apply --server-side` does. */
async function applyExample(example: Example, namespace: string): Promise<KubeObject> {
  const body = { ...example, metadata: { ...example.metadata, namespace } };
  const res = await real.raw.request('PATCH', path(example.kind, namespace, example.metadata.name), {
    query: { fieldManager: MANAGER, force: 'true', fieldValidation: 'Strict' },
    body,
    contentType: 'application/apply-patch+yaml',
  });
  expect([200, 201], `${example.kind} ${example.metadata.name}: ${invalidLines(res.body).join('; ')}`).toContain(res.status);
  expect(res.warnings, `${example.kind} ${example.metadata.name}`).toEqual([]);
  return res.body as unknown as KubeObject;
}

/** expectSameDefaults compares the real server's defaulted spec with the operator's and the fake's. */
function expectSameDefaults(example: Example, stored: KubeObject): void {
  const what = `${example.kind} ${example.metadata.name}`;
  const operator = defaultedSpec(example as KubeObject)['spec'];
  expect(stored['spec'], `${what}: the real server's defaults differ from operator/api defaultedSpec`).toEqual(operator);
  expect(defaultedSpec(stored)['spec'], `${what}: the operator would add defaults to what the real server stored`).toEqual(stored['spec']);
  const admitted = fake.get(example.kind)!.admit(example);
  expect(admitted.ok ? admitted.object['spec'] : admitted.errors, `${what}: the fake API server admits it differently`).toEqual(stored['spec']);
}

describe('custom resource examples on the real API server', () => {
  it('accepts every example of docs/operator.md with the operator\'s defaults', async () => {
    const examples = docExamples();
    expect(examples.length).toBeGreaterThanOrEqual(5);
    for (const [i, example] of examples.entries()) expectSameDefaults(example, await applyExample(example, `docs-${i}`));
  });

  it('accepts every builder fixture of operator/factory/testdata with the operator\'s defaults', async () => {
    const fixtures = fixtureExamples();
    expect(new Set(fixtures.map((f) => f.example.kind)).size).toBe(5);
    for (const { file, example } of fixtures) expectSameDefaults(example, await applyExample(example, `fixture-${file.replace(/\.yaml$/, '')}`));
  });

  it("accepts the chart's example stack as helm renders it, with the operator's defaults", async () => {
    const examples = chartExamples();
    expect(new Set(examples.map((e) => e.example.kind))).toEqual(new Set(['TSDBSingle', 'TSDBCluster', 'AuthProxy', 'AuthProxyUser']));
    for (const { file, example } of examples) expectSameDefaults(example, await applyExample(example, `chart-${file.replace(/\.yaml$/, '')}`));
  });

  it('refuses every bad example with the message its test expects, in the words of the fake', async () => {
    expect(BAD_EXAMPLES.length).toBeGreaterThanOrEqual(30);
    for (const { kind, spec, want } of BAD_EXAMPLES) {
      const obj = { apiVersion: 'strata.dev/v1beta1', kind, metadata: { name: 'bad', namespace: 'bad-examples' }, spec };
      const res = await real.raw.request('POST', path(kind, 'bad-examples'), { query: { dryRun: 'All' }, body: obj });
      const what = `${kind} ${JSON.stringify(spec)}`;
      expect(res.status, `${what} should be refused`).toBe(422);
      const lines = invalidLines(res.body);
      expect(lines.join('; '), what).toMatch(want);
      const admitted = fake.get(kind)!.admit(obj);
      expect(admitted.ok ? [] : [...admitted.errors].sort(), `${what}: the fake's errors`).toEqual([...lines].sort());
    }
  });

  it('applies the transition rules on update, as the fake does', async () => {
    for (const [i, { from, to, want }] of TRANSITIONS.entries()) {
      const name = `transition-${i}`;
      const created = await real.raw.request('POST', path('TSDBSingle', 'transitions'), { body: { apiVersion: 'strata.dev/v1beta1', kind: 'TSDBSingle', metadata: { name }, spec: from } });
      expect(created.status, JSON.stringify(created.body)).toBe(201);
      const updated = { ...created.body, spec: to };
      const res = await real.raw.request('PUT', path('TSDBSingle', 'transitions', name), { query: { dryRun: 'All' }, body: updated });
      const admitted = fake.get('TSDBSingle')!.admit(updated, created.body);
      if (want === undefined) {
        expect(res.status, invalidLines(res.body).join('; ')).toBe(200);
        expect(admitted.ok ? [] : admitted.errors).toEqual([]);
      } else {
        expect(res.status).toBe(422);
        expect(invalidLines(res.body).join('; ')).toMatch(want);
        expect(admitted.ok ? [] : [...admitted.errors].sort()).toEqual(invalidLines(res.body).sort());
      }
    }
  });
});
