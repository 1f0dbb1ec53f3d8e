import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { loadAll } from 'js-yaml';
import { beforeAll, describe, expect, it } from 'vitest';
import { resourcePath } from '../../operator/k8s/rest-client.ts';
import { CUSTOM } from '../../operator/k8s/resources.ts';
import { helm } from '../helm/helm.ts';
import { realApiServer } from './apiserver.ts';
import { RawKubeClient } from './client.ts';
import { applyCrd, crdsIn, waitEstablished } from './crds.ts';
import type { Crd } from './crds.ts';

// `kubectl apply --server-side -f crds/` and `helm install` against Kubernetes 1.36: the API
// server checks a CRD's structural schema, its CEL rules (compile, cost) and every default
// against its schema and rules, which no offline check of ours reproduces in full.
const CHART = join(import.meta.dirname, '..', '..', 'charts', 'strata-operator');
let raw: RawKubeClient;

beforeAll(async () => {
  raw = new RawKubeClient((await realApiServer()).kubeConfig);
});

describe('CRDs on the real API server', () => {
  const crds = crdsIn('crds');

  it.each(crds.map((c) => c.metadata.name))('accepts crds/%s and serves its resources once Established', async (name) => {
    const crd = crds.find((c) => c.metadata.name === name)!;
    await applyCrd(raw, crd, 'kubectl');
    await waitEstablished(raw, name);
    // Established says the resource is served; the handler may lag it by a moment.
    const path = resourcePath(CUSTOM[crd.spec.names.kind]!, 'crds-test');
    let list = await raw.request('GET', path);
    for (let i = 0; i < 50 && list.status === 404; i++) list = await sleep(100).then(() => raw.request('GET', path));
    expect(list.status, JSON.stringify(list.body)).toBe(200);
  });

  it("accepts the chart's CRDs as helm renders them", async () => {
    const rendered = (loadAll(helm(['template', 'rel', CHART, '--namespace', 'strata-system', '--include-crds'])) as (Crd | null)[]).filter(
      (o): o is Crd => o?.kind === 'CustomResourceDefinition',
    );
    expect(rendered.map((c) => c.metadata.name).sort()).toEqual(crdsIn('charts/strata-operator/crds').map((c) => c.metadata.name));
    expect(rendered.map((c) => c.metadata.name).sort()).toEqual(crds.map((c) => c.metadata.name));
    for (const crd of rendered) {
      await applyCrd(raw, crd, 'helm');
      await waitEstablished(raw, crd.metadata.name);
    }
  });
});
