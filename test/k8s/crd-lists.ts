// x-kubernetes-list-type invariants the API server checks after the OpenAPI schema: items of a
// "set" are unique, items of a "map" are unique by their x-kubernetes-list-map-keys.
import type { JsonSchemaProps } from '../../operator/api/schema.ts';
import { goJSON, goValue } from './crd-errors.ts';

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** canonical is a key-order independent JSON rendering (equal values, equal strings). */
const canonical = goJSON;

/** listErrors returns "path[i]: Duplicate value: ..." lines for the repeated set items and map keys. */
export function listErrors(schema: JsonSchemaProps, value: unknown, path: string): string[] {
  const out: string[] = [];
  if (Array.isArray(value) && schema.items !== undefined) {
    const type = schema['x-kubernetes-list-type'];
    const keys = schema['x-kubernetes-list-map-keys'] ?? [];
    const seen = new Set<string>();
    const reported = new Set<string>();
    // A map list with an item that is not an object gets that one error, for its first such item.
    const notObject = type === 'map' ? value.findIndex((item) => item !== null && !isObject(item)) : -1;
    if (notObject >= 0) out.push(`${path}[${notObject}]: Invalid value: ${goValue(value[notObject])}: must be an object for an array of list-type map`);
    else if (type === 'set' || type === 'map') {
      value.forEach((item, i) => {
        // A map-list item has the key fields it has (the schema reports missing ones); null has none.
        const key = type === 'set' ? item : isObject(item) ? Object.fromEntries(keys.filter((k) => item[k] !== undefined).map((k) => [k, item[k]])) : {};
        // Each repeated value is reported once, at its first repeat.
        const id = canonical(key);
        if (seen.has(id) && !reported.has(id)) {
          out.push(`${path}[${i}]: Duplicate value: ${goValue(key)}`);
          reported.add(id);
        }
        seen.add(id);
      });
    }
    value.forEach((item, i) => out.push(...listErrors(schema.items!, item, `${path}[${i}]`)));
  } else if (isObject(value)) {
    for (const [name, v] of Object.entries(value)) {
      const sub = schema.properties?.[name] ?? schema.additionalProperties;
      if (sub !== undefined) out.push(...listErrors(sub, v, path === '' ? name : `${path}.${name}`));
    }
  }
  return out;
}
