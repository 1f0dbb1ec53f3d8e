// Structural-schema operations the API server performs on custom resources: defaulting and
// pruning of unknown fields. The operator defaults specs itself too, so it behaves the same
// whether or not the object it reads went through an API server that knows the current CRD
// (an older CRD version, or a test fake).
import type { JsonSchemaProps } from './schema.ts';

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * applyDefaults returns a copy of value with schema defaults filled in where fields are absent
 * (or null), recursing into objects, arrays and maps as the API server does. Pure; never throws.
 */
export function applyDefaults(schema: JsonSchemaProps, value: unknown): unknown {
  if (Array.isArray(value)) {
    const items = schema.items;
    return items === undefined ? value.slice() : value.map((v) => applyDefaults(items, v));
  }
  if (!isObject(value)) return value;
  const out: Record<string, unknown> = { ...value };
  if (schema.properties !== undefined) {
    for (const [name, sub] of Object.entries(schema.properties)) {
      if ((out[name] === undefined || out[name] === null) && sub.default !== undefined) out[name] = structuredClone(sub.default);
      if (out[name] !== undefined && out[name] !== null) out[name] = applyDefaults(sub, out[name]);
    }
  } else if (schema.additionalProperties !== undefined) {
    for (const [name, v] of Object.entries(out)) out[name] = applyDefaults(schema.additionalProperties, v);
  }
  return out;
}

/**
 * prune returns a copy of value without the fields the schema does not declare, except under
 * x-kubernetes-preserve-unknown-fields. `metadata` at the top level is kept as-is by the caller.
 */
export function prune(schema: JsonSchemaProps, value: unknown): unknown {
  if (schema['x-kubernetes-preserve-unknown-fields'] === true) return value;
  if (Array.isArray(value)) {
    const items = schema.items;
    return items === undefined ? value : value.map((v) => prune(items, v));
  }
  if (!isObject(value)) return value;
  const out: Record<string, unknown> = {};
  if (schema.properties !== undefined) {
    for (const [name, v] of Object.entries(value)) {
      const sub = schema.properties[name];
      if (sub !== undefined) out[name] = prune(sub, v);
    }
    return out;
  }
  if (schema.additionalProperties !== undefined) {
    for (const [name, v] of Object.entries(value)) out[name] = prune(schema.additionalProperties, v);
    return out;
  }
  return out;
}

/**
 * dropNulls returns a copy of value without null object fields and map entries, as the API
 * server drops nulls of non-nullable fields (after defaulting filled the ones with defaults).
 * Null list items are kept: the schema refuses them.
 */
export function dropNulls(schema: JsonSchemaProps, value: unknown): unknown {
  if (schema['x-kubernetes-preserve-unknown-fields'] === true) return value;
  if (Array.isArray(value)) {
    const items = schema.items;
    return items === undefined ? value : value.map((v) => dropNulls(items, v));
  }
  if (!isObject(value)) return value;
  const out: Record<string, unknown> = {};
  for (const [name, v] of Object.entries(value)) {
    if (v === null) continue;
    const sub = schema.properties?.[name] ?? schema.additionalProperties;
    out[name] = sub === undefined ? v : dropNulls(sub, v);
  }
  return out;
}
