// Builds apiextensions.k8s.io/v1 CustomResourceDefinitions from the kind definitions.
import { dump } from 'js-yaml';
import { GROUP, KINDS, objectSchema, VERSION } from './kinds.ts';
import type { KindDefinition } from './kinds.ts';
import type { JsonSchemaProps } from './schema.ts';

/** CustomResourceDefinition is the shape of the generated CRD objects (plain JSON). */
export interface CustomResourceDefinition {
  apiVersion: 'apiextensions.k8s.io/v1';
  kind: 'CustomResourceDefinition';
  metadata: { name: string; labels: Record<string, string> };
  spec: {
    group: string;
    names: { kind: string; listKind: string; plural: string; singular: string; shortNames: string[]; categories: string[] };
    scope: 'Namespaced';
    versions: {
      name: string;
      served: true;
      storage: true;
      schema: { openAPIV3Schema: JsonSchemaProps };
      subresources: { status: Record<string, never>; scale?: { specReplicasPath: string; statusReplicasPath: string; labelSelectorPath: string } };
      additionalPrinterColumns: { name: string; type: string; jsonPath: string; description: string; priority?: number }[];
    }[];
  };
}

/** stripDocOnly removes documentation-only keywords (examples) from a schema, recursively. */
export function stripDocOnly(schema: JsonSchemaProps): JsonSchemaProps {
  const out: JsonSchemaProps = {};
  for (const [key, value] of Object.entries(schema) as [keyof JsonSchemaProps, unknown][]) {
    if (key === 'example') continue;
    if (key === 'properties') {
      const props: Record<string, JsonSchemaProps> = {};
      for (const [name, sub] of Object.entries(value as Record<string, JsonSchemaProps>)) props[name] = stripDocOnly(sub);
      out.properties = props;
    } else if (key === 'items' || key === 'additionalProperties') {
      out[key] = stripDocOnly(value as JsonSchemaProps);
    } else if (key === 'anyOf') {
      out.anyOf = (value as JsonSchemaProps[]).map(stripDocOnly);
    } else {
      (out as Record<string, unknown>)[key] = value;
    }
  }
  return out;
}

/** buildCrd returns the CRD of one kind; deterministic (sorted properties, stable key order). */
export function buildCrd(def: KindDefinition): CustomResourceDefinition {
  const version: CustomResourceDefinition['spec']['versions'][number] = {
    name: VERSION,
    served: true,
    storage: true,
    schema: { openAPIV3Schema: stripDocOnly(objectSchema(def)) },
    subresources: { status: {} },
    additionalPrinterColumns: def.printerColumns.map((c) => ({ ...c })),
  };
  if (def.scale) {
    version.subresources.scale = { specReplicasPath: '.spec.replicas', statusReplicasPath: '.status.replicas', labelSelectorPath: '.status.selector' };
  }
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: `${def.plural}.${GROUP}`, labels: { 'app.kubernetes.io/part-of': 'strata' } },
    spec: {
      group: GROUP,
      names: { kind: def.kind, listKind: `${def.kind}List`, plural: def.plural, singular: def.singular, shortNames: [...def.shortNames], categories: ['strata'] },
      scope: 'Namespaced',
      versions: [version],
    },
  };
}

/** crdFiles maps file names under crds/ to their YAML text. */
export function crdFiles(): Map<string, string> {
  const files = new Map<string, string>();
  for (const def of KINDS) {
    const crd = buildCrd(def);
    const header = '# Generated from operator/api by `node operator/api/generate.ts`; do not edit.\n';
    files.set(`${crd.metadata.name}.yaml`, header + dump(crd, { noRefs: true, lineWidth: -1 }));
  }
  return files;
}
