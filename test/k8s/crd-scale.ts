// The scale subresource's checks of the replica counts (specReplicasPath, statusReplicasPath),
// which the API server makes besides the schema, in its words.

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** goType is the Go type name of a decoded JSON value (for accessor errors). */
const goType = (v: unknown): string =>
  typeof v === 'string' ? 'string' : typeof v === 'number' ? 'float64' : typeof v === 'boolean' ? 'bool' : Array.isArray(v) ? '[]interface {}' : 'map[string]interface {}';

/** goV is Go's %v of a decoded JSON value. */
function goV(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(goV).join(' ')}]`;
  if (isObject(v)) return `map[${Object.keys(v).sort().map((k) => `${k}:${goV(v[k])}`).join(' ')}]`;
  return v === null ? '<nil>' : String(v);
}

/**
 * replicasErrors checks a replica count of the scale subresource (specReplicasPath or
 * statusReplicasPath, ".spec.replicas") as the API server does besides the schema.
 */
export function replicasErrors(obj: Record<string, unknown>, path: string): string[] {
  let v: unknown = obj;
  for (const seg of path.slice(1).split('.')) v = isObject(v) ? v[seg] : undefined;
  if (v === undefined) return [];
  if (typeof v !== 'number' || !Number.isInteger(v)) return [`${path}: Invalid value: 0: ${path} accessor error: ${goV(v)} is of the type ${goType(v)}, expected int64`];
  if (v < 0) return [`${path}: Invalid value: ${v}: should be a non-negative integer`];
  if (v > 2 ** 31 - 1) return [`${path}: Invalid value: ${v}: should be less than or equal to ${2 ** 31 - 1}`];
  return [];
}
