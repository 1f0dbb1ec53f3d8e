import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { dump, load } from 'js-yaml';
import { describe, expect, it } from 'vitest';
import { defaultedSpec } from '../api/defaulted.ts';
import type { AuthProxy } from '../api/resources.ts';
import { validateK8sObject } from '../k8s/fake/schemas.ts';
import type { KubeObject } from '../k8s/types.ts';
import { contentHash } from './common/hash.ts';
import { templateImages } from './common/images.ts';
import type { BuildOptions } from './common/options.ts';
import { buildResource, FIXTURE_DIR, FIXTURE_OPTIONS, fixtureFiles, fixtureUsers, renderProxyConfig } from './fixtures.test-helpers.ts';

// Goldens pin the builders' output. A diff means Pods of existing users would restart when they
// upgrade the operator: regenerate with UPDATE_GOLDEN=1 only when that is intended.
const DIR = FIXTURE_DIR;
const UPDATE = process.env['UPDATE_GOLDEN'] === '1';
const OPTS: BuildOptions = FIXTURE_OPTIONS;
const build = (obj: KubeObject, opts: BuildOptions = OPTS): KubeObject[] => buildResource(obj, opts);
const fixtures = fixtureFiles();

function golden(file: string, text: string): void {
  const path = join(DIR, file);
  if (UPDATE || !existsSync(path)) writeFileSync(path, text);
  expect(text, `${file} differs from the builders' output`).toBe(readFileSync(path, 'utf8'));
}

describe('builders', () => {
  it.each(fixtures)('%s builds valid Kubernetes objects matching the golden file', (file) => {
    const objects = build(load(readFileSync(join(DIR, file), 'utf8')) as KubeObject);
    for (const o of objects) expect(validateK8sObject(o), `${o.kind} ${o.metadata.name}`).toBeUndefined();
    golden(file.replace(/\.yaml$/, '.golden.yaml'), dump(objects, { noRefs: true, lineWidth: -1 }));
  });

  it('renders the fixture users into the AuthProxy config, rejecting the broken ones with a reason', () => {
    const proxy = defaultedSpec(load(readFileSync(join(DIR, 'authproxy.yaml'), 'utf8')) as AuthProxy);
    const out = renderProxyConfig(proxy, fixtureUsers());
    expect([...out.rejected.entries()].map(([k, v]) => `${k}: ${v.reason}`)).toEqual(['metrics/no-secret: SecretNotFound', 'metrics/team-a-copy: DuplicateCredentials']);
  });

  it('is deterministic: building twice yields identical output', () => {
    for (const file of fixtures) {
      const obj = load(readFileSync(join(DIR, file), 'utf8')) as KubeObject;
      expect(JSON.stringify(build(obj))).toBe(JSON.stringify(build(structuredClone(obj))));
    }
  });

  it('keeps every Pod template unchanged, so an operator upgrade restarts nothing', () => {
    const hashes: Record<string, string> = {};
    for (const file of fixtures) {
      for (const o of build(load(readFileSync(join(DIR, file), 'utf8')) as KubeObject)) {
        const template = (o['spec'] as { template?: unknown } | undefined)?.template;
        if (template !== undefined) hashes[`${file} ${o.kind}/${o.metadata.name}`] = contentHash(template);
      }
    }
    golden('pod-templates.golden.json', `${JSON.stringify(hashes, null, 2)}\n`);
  });

  it('rebuilds the same objects from the recorded images under an operator with other defaults', () => {
    const newer: BuildOptions = { images: { tsdb: 'registry.new/strata/tsdb:9.9.9', gateway: 'registry.new/gw:9.9.9', authproxy: 'registry.new/ap:9.9.9', backupmanager: 'registry.new/bm:9.9.9' } };
    for (const file of fixtures) {
      const obj = load(readFileSync(join(DIR, file), 'utf8')) as KubeObject;
      const before = build(obj);
      const recorded = templateImages(before);
      expect(JSON.stringify(build(obj, { ...newer, recordedImages: recorded })), file).toBe(JSON.stringify(before));
      // Without a record the newer defaults do apply (the record is what keeps images).
      expect(Object.values(templateImages(build(obj, newer))).filter((i) => i.startsWith('registry.new/')).length, file).toBeGreaterThan(0);
    }
  });

  it('records one image per container name of each fixture', () => {
    const f = (file: string, want: Record<string, string>) => expect(templateImages(build(load(readFileSync(join(DIR, file), 'utf8')) as KubeObject))).toEqual(want);
    f('single-minimal.yaml', { tsdb: 'strata/tsdb:0.1.0' });
    f('single-backup.yaml', { tsdb: 'strata/tsdb:0.2.0', backup: 'strata/backupmanager:0.1.0' });
    f('cluster-minimal.yaml', { 'tsdb-storage': 'strata/tsdb:0.1.0', 'tsdb-select': 'strata/tsdb:0.1.0', 'tsdb-insert': 'strata/tsdb:0.1.0' });
    f('gateway-urls.yaml', { gateway: 'strata/gateway:0.1.0' });
    f('authproxy.yaml', { authproxy: 'strata/authproxy:0.1.0' });
  });

  it('merges spec image fields over the recorded image, not over the defaults', () => {
    const single = (image: object | undefined) => ({ apiVersion: 'strata.dev/v1beta1', kind: 'TSDBSingle', metadata: { name: 'x', namespace: 'metrics' }, spec: image === undefined ? {} : { image } }) as KubeObject;
    const opts: BuildOptions = { ...OPTS, recordedImages: { tsdb: 'mirror.local:5000/strata/tsdb:0.0.9' } };
    const f = (image: object | undefined, want: string) => expect(templateImages(build(single(image), opts))['tsdb']).toBe(want);
    f(undefined, 'mirror.local:5000/strata/tsdb:0.0.9');
    f({ tag: '2.0.0' }, 'mirror.local:5000/strata/tsdb:2.0.0');
    f({ repository: 'ghcr.io/strata/tsdb' }, 'ghcr.io/strata/tsdb:0.0.9');
    f({ repository: 'ghcr.io/strata/tsdb', tag: '2.0.0' }, 'ghcr.io/strata/tsdb:2.0.0');
  });
});
