// Kubernetes' wording of OpenAPI schema violations, so the fake API server refuses custom
// resources with the messages the real one (apiextensions-apiserver 1.36) uses: one line per
// field error, "<path>: <type>: <detail>", paths like spec.extraEnv[0].name.
import type { ErrorObject } from 'ajv';

/** FieldError is one line of an "is invalid" message; `blocking` errors stop CEL evaluation. */
export interface FieldError {
  readonly line: string;
  readonly blocking: boolean;
}

/**
 * NOT_CHECKED is added when blocking errors (wrong type, enum, required, too long, too many)
 * keep the API server from evaluating the x-kubernetes-validations rules.
 */
export const NOT_CHECKED = '<nil>: Invalid value: null: some validation rules were not checked because the object was invalid; correct the existing errors to complete validation';

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** goQuote is Go's strconv.Quote for the strings that reach messages. */
export function goQuote(s: string): string {
  const named: Record<string, string> = { '\x07': '\\a', '\b': '\\b', '\f': '\\f', '\n': '\\n', '\r': '\\r', '\t': '\\t', '\v': '\\v', '"': '\\"', '\\': '\\\\' };
  let out = '"';
  for (const c of s) {
    const cp = c.codePointAt(0)!;
    if (named[c] !== undefined) out += named[c];
    else if (cp < 0x20 || cp === 0x7f) out += `\\x${cp.toString(16).padStart(2, '0')}`;
    else if (/[\p{Cc}\p{Cf}\p{Co}\p{Cn}\p{Zl}\p{Zp}\p{Cs}]/u.test(c) || (/\p{Zs}/u.test(c) && c !== ' ')) out += cp > 0xffff ? `\\U${cp.toString(16).padStart(8, '0')}` : `\\u${cp.toString(16).padStart(4, '0')}`;
    else out += c;
  }
  return `${out}"`;
}

/** goJSON is Go's json.Marshal: sorted object keys, and &, <, >, U+2028, U+2029 escaped. */
export function goJSON(v: unknown): string {
  const sorted = (x: unknown): unknown =>
    Array.isArray(x) ? x.map(sorted) : typeof x === 'object' && x !== null ? Object.fromEntries(Object.keys(x).sort().map((k) => [k, sorted((x as Record<string, unknown>)[k])])) : x;
  const escapes: Record<string, string> = { '&': '\\u0026', '<': '\\u003c', '>': '\\u003e', '\u2028': '\\u2028', '\u2029': '\\u2029' };
  return JSON.stringify(sorted(v)).replace(/[&<>\u2028\u2029]/g, (c) => escapes[c]!);
}

/** goValue renders a value the way field errors print it (strings quoted, numbers bare, else JSON). */
export const goValue = (v: unknown): string => (typeof v === 'string' ? goQuote(v) : typeof v === 'number' || typeof v === 'boolean' ? String(v) : goJSON(v));

/** jsonType is the OpenAPI type name of a value, as the API server reports it. */
export function jsonType(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'array';
  if (typeof v === 'number') return Number.isInteger(v) ? 'integer' : 'number';
  return typeof v;
}

/** goSchemaInfo is the JSON type and format go-openapi infers from a decoded value. */
function goSchemaInfo(v: unknown): { type: string; format: string; stringOrSlice: boolean } {
  if (typeof v === 'number') return Number.isInteger(v) ? { type: 'integer', format: 'int64', stringOrSlice: false } : { type: 'number', format: 'float64', stringOrSlice: false };
  if (typeof v === 'string') return { type: 'string', format: '', stringOrSlice: true };
  if (Array.isArray(v)) return { type: 'array', format: '', stringOrSlice: true };
  return { type: typeof v === 'boolean' ? 'boolean' : 'object', format: '', stringOrSlice: false };
}

/**
 * typeError is go-openapi's type check (validation/type.go), quirks included: a field with a
 * format names the format ("must be of type int32") for values other than strings and lists,
 * and a non-numeric field with a format accepts any string or list (an array passes as a
 * `format: uri` string). Undefined when the API server finds no type error.
 */
function typeError(path: string, schema: { type?: string; format?: string }, value: unknown): string | undefined {
  const want = schema.type ?? '';
  const format = schema.format ?? '';
  const line = (type: string, have: string) => `${path}: Invalid value: "${have}": ${path} in body must be of type ${type}: "${have}"`;
  if (value === null) return line(want, 'null');
  const have = goSchemaInfo(value);
  const intAsNumber = have.type === 'integer' && want === 'number';
  if (!have.stringOrSlice && format !== '' && !(want === have.type || have.format === format || intAsNumber)) return line(format, have.format);
  if (want !== 'number' && want !== 'integer' && format !== '' && have.stringOrSlice) return undefined;
  return want === have.type || intAsNumber ? undefined : line(want, have.type);
}

/** fieldPath turns a JSON pointer into a Kubernetes field path, walking root to tell lists from maps. */
export function fieldPath(pointer: string, root: unknown): string {
  let path = '';
  let node = root;
  for (const raw of pointer.split('/').slice(1)) {
    const seg = raw.replaceAll('~1', '/').replaceAll('~0', '~');
    if (Array.isArray(node)) {
      path += `[${seg}]`;
      node = node[Number(seg)];
    } else {
      path += path === '' ? seg : `.${seg}`;
      node = isObject(node) ? node[seg] : undefined;
    }
  }
  return path;
}

function valueAt(pointer: string, root: unknown): unknown {
  let node = root;
  for (const raw of pointer.split('/').slice(1)) {
    const seg = raw.replaceAll('~1', '/').replaceAll('~0', '~');
    node = Array.isArray(node) ? node[Number(seg)] : isObject(node) ? node[seg] : undefined;
  }
  return node;
}

/** schemaErrors words ajv's errors as the API server does, in ajv's order. */
export function schemaErrors(errors: readonly ErrorObject[], root: unknown): FieldError[] {
  const out: FieldError[] = [];
  // int-or-string fields are anyOf [integer, string]: the branches' own errors are reported under anyOf.
  const branch = (e: ErrorObject) => /\/anyOf\/\d+\//.test(e.schemaPath);
  // A string reports only the first of maxLength, minLength and pattern it fails (go-openapi order).
  const STRING_ORDER = ['maxLength', 'minLength', 'pattern'];
  const shadowed = (e: ErrorObject) => {
    const rank = STRING_ORDER.indexOf(e.keyword);
    return rank > 0 && errors.some((o) => o.instancePath === e.instancePath && STRING_ORDER.indexOf(o.keyword) >= 0 && STRING_ORDER.indexOf(o.keyword) < rank);
  };
  for (const e of errors) {
    if (branch(e) || shadowed(e)) continue;
    const path = fieldPath(e.instancePath, root);
    const value = valueAt(e.instancePath, root);
    const p = e.params as Record<string, unknown>;
    const invalid = (detail: string, blocking = false) => out.push({ line: `${path}: Invalid value: ${goValue(value)}: ${path} in body ${detail}`, blocking });
    switch (e.keyword) {
      case 'required':
        out.push({ line: `${path === '' ? '' : `${path}.`}${String(p['missingProperty'])}: Required value`, blocking: true });
        break;
      case 'type': {
        const line = typeError(path, (e.parentSchema ?? {}) as { type?: string; format?: string }, value);
        if (line !== undefined) out.push({ line, blocking: true });
        break;
      }
      case 'enum':
        out.push({ line: `${path}: Unsupported value: ${goValue(value)}: supported values: ${(p['allowedValues'] as unknown[]).map(goValue).join(', ')}`, blocking: true });
        break;
      case 'anyOf': {
        const t = jsonType(value);
        out.push({ line: `${path}: Invalid value: "${t}": ${path} in body must be of type integer,string: "${t}"`, blocking: true });
        out.push({ line: `<nil>: Invalid value: "": "${path}" must validate at least one schema (anyOf)`, blocking: false });
        out.push({ line: `${path}: Invalid value: "${t}": ${path} in body must be of type integer: "${t}"`, blocking: true });
        if (t === 'number') out.push({ line: `<nil>: Invalid value: "": Checked value must be of type integer (default format) in ${path}`, blocking: false });
        break;
      }
      case 'pattern':
        invalid(`should match '${String(p['pattern'])}'`);
        break;
      case 'minimum':
        invalid(`should be greater than or equal to ${String(p['limit'])}`);
        break;
      case 'maximum':
        invalid(`should be less than or equal to ${String(p['limit'])}`);
        break;
      case 'minLength':
        invalid(`should be at least ${String(p['limit'])} chars long`);
        break;
      case 'maxLength':
        out.push({ line: `${path}: Too long: may not be more than ${String(p['limit'])} bytes`, blocking: true });
        break;
      case 'minItems':
        out.push({ line: `${path}: Invalid value: ${(value as unknown[]).length}: ${path} in body should have at least ${String(p['limit'])} items`, blocking: false });
        break;
      case 'maxItems':
        out.push({ line: `${path}: Too many: ${(value as unknown[]).length}: must have at most ${String(p['limit'])} items`, blocking: true });
        break;
      case 'maxProperties':
        out.push({ line: `${path}: Too many: ${Object.keys(value as object).length}: must have at most ${String(p['limit'])} items`, blocking: true });
        break;
      case 'format':
        if (p['format'] === 'int32' || p['format'] === 'int64') {
          out.push({ line: `<nil>: Invalid value: "": Checked value must be of type integer with format ${String(p['format'])} in ${path}`, blocking: false });
        } else {
          out.push({ line: `${path}: Invalid value: ${goValue(value)}: ${path} in body must be of type ${String(p['format'])}: ${goValue(value)}`, blocking: true });
        }
        break;
      default:
        out.push({ line: `${path}: Invalid value: ${goValue(value)}: ${e.message ?? 'invalid'}`, blocking: false });
    }
  }
  return out;
}
