import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { load } from 'js-yaml';
import { describe, expect, it } from 'vitest';
import { validateK8sObject } from '../k8s/fake/schemas.ts';
import { buildCrd, crdFiles } from './crd.ts';
import { fieldRows, isLeaf, withReference } from './docs.ts';
import { CRD_DIRS, DOCS_FILE } from './generate.ts';
import { KINDS } from './kinds.ts';
import type { JsonSchemaProps } from './schema.ts';

const ROOT = join(import.meta.dirname, '..', '..');
const STALE = 'is stale: run `node operator/api/generate.ts` and commit the result';

describe('generated artefacts', () => {
  it.each(CRD_DIRS)('%s/ matches operator/api', (dir) => {
    const want = crdFiles();
    const have = readdirSync(join(ROOT, dir)).filter((f) => f.endsWith('.yaml')).sort();
    expect(have, `${dir} ${STALE}`).toEqual([...want.keys()].sort());
    for (const [name, text] of want) expect(readFileSync(join(ROOT, dir, name), 'utf8'), `${dir}/${name} ${STALE}`).toBe(text);
  });

  it('docs/operator.md carries the current field reference', () => {
    const doc = readFileSync(join(ROOT, DOCS_FILE), 'utf8');
    expect(doc, `${DOCS_FILE} ${STALE}`).toBe(withReference(doc));
  });
});

// Structural schemas (what the API server requires of a CRD) and documentation completeness.
function walk(s: JsonSchemaProps, path: string, visit: (s: JsonSchemaProps, path: string) => void): void {
  visit(s, path);
  for (const [k, sub] of Object.entries(s.properties ?? {})) walk(sub, `${path}.${k}`, visit);
  if (s.items !== undefined) walk(s.items, `${path}[]`, visit);
  if (s.additionalProperties !== undefined) walk(s.additionalProperties, `${path}{}`, visit);
}

describe('CRDs', () => {
  it.each(KINDS.map((k) => k.kind))('%s is a valid, structural CustomResourceDefinition', (kind) => {
    const crd = buildCrd(KINDS.find((k) => k.kind === kind)!);
    expect(validateK8sObject(crd)).toBeUndefined();
    const problems: string[] = [];
    walk(crd.spec.versions[0]!.schema.openAPIV3Schema, '', (s, path) => {
      const typed = s.type !== undefined || s['x-kubernetes-int-or-string'] === true;
      if (!typed) problems.push(`${path}: no type`);
      if (path.startsWith('.spec') && (s.description ?? '') === '') problems.push(`${path}: no description`);
      if (s['x-kubernetes-list-type'] === 'map' && (s['x-kubernetes-list-map-keys'] ?? []).some((k) => !(s.items?.required ?? []).includes(k))) problems.push(`${path}: list-map keys must be required`);
      if (s.type === 'object' && s.properties === undefined && s.additionalProperties === undefined && s['x-kubernetes-preserve-unknown-fields'] !== true && path !== '.metadata') problems.push(`${path}: object without fields`);
    });
    expect(problems).toEqual([]);
  });

  it('has status and printer columns on every kind, scale where there is a replica count', () => {
    for (const def of KINDS) {
      const v = buildCrd(def).spec.versions[0]!;
      expect(v.subresources.status).toEqual({});
      expect(v.additionalPrinterColumns.map((c) => c.name)).toContain('Age');
      expect(v.additionalPrinterColumns.map((c) => c.name)).toContain('Status');
      if (def.scale) expect(def.spec.json.properties?.['replicas']).toBeDefined();
    }
  });

  it('documents an example for every field a user sets directly', () => {
    const missing = KINDS.flatMap((def) => {
      const rows = fieldRows(def.spec.json, 'spec');
      return rows.filter((r) => isLeaf(r, rows) && r.example === undefined).map((r) => `${def.kind} ${r.path}`);
    });
    expect(missing).toEqual([]);
  });

  it('parses back from the generated YAML to the same object', () => {
    for (const [name, text] of crdFiles()) expect(load(text), name).toEqual(JSON.parse(JSON.stringify(buildCrd(KINDS.find((k) => name.startsWith(`${k.plural}.`))!))));
  });
});
