// A tiny schema DSL whose values are both the CRD's structural OpenAPI schema and, through
// `Static<typeof X>`, the TypeScript type the operator works with. One definition feeds the
// generated `crds/*.yaml`, the defaulting the operator applies, and the field reference in
// docs/operator.md, so the three cannot drift.

/** CelRule is one `x-kubernetes-validations` entry (evaluated by the API server on create/update). */
export interface CelRule {
  readonly rule: string;
  readonly message: string;
  readonly reason?: 'FieldValueInvalid' | 'FieldValueForbidden' | 'FieldValueRequired' | 'FieldValueDuplicate';
  readonly fieldPath?: string;
}

/** JsonSchemaProps is the subset of apiextensions.k8s.io/v1 JSONSchemaProps the DSL emits. */
export interface JsonSchemaProps {
  type?: 'object' | 'array' | 'string' | 'integer' | 'number' | 'boolean';
  description?: string;
  format?: string;
  pattern?: string;
  enum?: readonly unknown[];
  default?: unknown;
  minimum?: number;
  maximum?: number;
  minLength?: number;
  maxLength?: number;
  minItems?: number;
  maxItems?: number;
  maxProperties?: number;
  properties?: Record<string, JsonSchemaProps>;
  required?: string[];
  items?: JsonSchemaProps;
  additionalProperties?: JsonSchemaProps;
  anyOf?: JsonSchemaProps[];
  /** example is documentation only; the CRD generator strips it. */
  example?: unknown;
  'x-kubernetes-preserve-unknown-fields'?: true;
  'x-kubernetes-int-or-string'?: true;
  'x-kubernetes-list-type'?: 'atomic' | 'set' | 'map';
  'x-kubernetes-list-map-keys'?: string[];
  'x-kubernetes-map-type'?: 'granular' | 'atomic';
  'x-kubernetes-validations'?: CelRule[];
}

/** Schema carries a JSON schema plus phantom types: T is the value type, D says "has a default". */
export interface Schema<T, D extends boolean = boolean> {
  readonly json: JsonSchemaProps;
  readonly __type?: T;
  readonly __hasDefault?: D;
}

/** Static is the TypeScript type described by a schema (defaulted fields are non-optional). */
export type Static<S> = S extends Schema<infer T, boolean> ? T : never;

type AnySchema = Schema<unknown, boolean>;
type Props = Record<string, AnySchema>;
type KeysWithDefault<P extends Props> = { [K in keyof P]: P[K] extends Schema<unknown, true> ? K : never }[keyof P];
type PresentKeys<P extends Props, R extends keyof P> = R | KeysWithDefault<P>;
type Simplify<T> = { [K in keyof T]: T[K] } & {};
/** ObjectOf is the object type of a property map: required and defaulted keys are present. */
export type ObjectOf<P extends Props, R extends keyof P> = Simplify<
  { -readonly [K in PresentKeys<P, R>]: Static<P[K]> } & { -readonly [K in Exclude<keyof P, PresentKeys<P, R>>]?: Static<P[K]> }
>;

/** Common documentation options every builder accepts. */
export interface Doc {
  readonly description: string;
  readonly example?: unknown;
}

interface StringOpts extends Doc {
  readonly format?: 'uri' | 'date-time' | 'byte' | 'hostname' | 'ipv4' | 'ipv6' | 'cidr' | 'duration';
  readonly pattern?: string;
  readonly minLength?: number;
  readonly maxLength?: number;
  readonly rules?: readonly CelRule[];
}

function withDoc(json: JsonSchemaProps, doc: Doc): JsonSchemaProps {
  const out: JsonSchemaProps = { ...json, description: doc.description };
  if (doc.example !== undefined) out.example = doc.example;
  return out;
}

function withRules(json: JsonSchemaProps, rules: readonly CelRule[] | undefined): JsonSchemaProps {
  if (rules === undefined || rules.length === 0) return json;
  return { ...json, 'x-kubernetes-validations': [...rules] };
}

/** str is a string; with `default` the field is always present after defaulting. */
export function str(opts: StringOpts & { readonly default: string }): Schema<string, true>;
export function str(opts: StringOpts): Schema<string, false>;
export function str(opts: StringOpts & { readonly default?: string }): Schema<string> {
  const json: JsonSchemaProps = { type: 'string' };
  if (opts.format !== undefined) json.format = opts.format;
  if (opts.pattern !== undefined) json.pattern = opts.pattern;
  if (opts.minLength !== undefined) json.minLength = opts.minLength;
  if (opts.maxLength !== undefined) json.maxLength = opts.maxLength;
  if (opts.default !== undefined) json.default = opts.default;
  return { json: withRules(withDoc(json, opts), opts.rules) };
}

/** oneOf is a string restricted to the given literals. */
export function oneOf<const V extends readonly string[]>(values: V, opts: Doc & { readonly default: V[number] }): Schema<V[number], true>;
export function oneOf<const V extends readonly string[]>(values: V, opts: Doc): Schema<V[number], false>;
export function oneOf<const V extends readonly string[]>(values: V, opts: Doc & { readonly default?: V[number] }): Schema<V[number]> {
  const json: JsonSchemaProps = { type: 'string', enum: [...values] };
  if (opts.default !== undefined) json.default = opts.default;
  return { json: withDoc(json, opts) };
}

interface NumberOpts extends Doc {
  readonly minimum?: number;
  readonly maximum?: number;
}

function numeric(type: 'integer' | 'number', opts: NumberOpts & { readonly default?: number }): JsonSchemaProps {
  const json: JsonSchemaProps = { type };
  if (type === 'integer') json.format = 'int32';
  if (opts.minimum !== undefined) json.minimum = opts.minimum;
  if (opts.maximum !== undefined) json.maximum = opts.maximum;
  if (opts.default !== undefined) json.default = opts.default;
  return withDoc(json, opts);
}

/** int is a 32-bit integer. */
export function int(opts: NumberOpts & { readonly default: number }): Schema<number, true>;
export function int(opts: NumberOpts): Schema<number, false>;
export function int(opts: NumberOpts & { readonly default?: number }): Schema<number> {
  return { json: numeric('integer', opts) };
}

/** bool is a boolean. */
export function bool(opts: Doc & { readonly default: boolean }): Schema<boolean, true>;
export function bool(opts: Doc): Schema<boolean, false>;
export function bool(opts: Doc & { readonly default?: boolean }): Schema<boolean> {
  const json: JsonSchemaProps = { type: 'boolean' };
  if (opts.default !== undefined) json.default = opts.default;
  return { json: withDoc(json, opts) };
}

/** intOrString is Kubernetes' IntOrString (quantities, percentages); a pattern constrains the string form. */
export function intOrString(opts: Doc & { readonly pattern?: string }): Schema<number | string, false> {
  const json: JsonSchemaProps = { anyOf: [{ type: 'integer' }, { type: 'string' }], 'x-kubernetes-int-or-string': true };
  if (opts.pattern !== undefined) json.pattern = opts.pattern;
  return { json: withDoc(json, opts) };
}

interface ArrayOpts extends Doc {
  readonly maxItems?: number;
  readonly minItems?: number;
  readonly listType?: 'atomic' | 'set' | 'map';
  readonly listMapKeys?: readonly string[];
  readonly rules?: readonly CelRule[];
}

/** arr is a list; listType "map" needs listMapKeys naming required item fields. */
export function arr<S extends AnySchema>(item: S, opts: ArrayOpts): Schema<Static<S>[], false> {
  const json: JsonSchemaProps = { type: 'array', items: item.json };
  if (opts.maxItems !== undefined) json.maxItems = opts.maxItems;
  if (opts.minItems !== undefined) json.minItems = opts.minItems;
  if (opts.listType !== undefined) json['x-kubernetes-list-type'] = opts.listType;
  if (opts.listMapKeys !== undefined) json['x-kubernetes-list-map-keys'] = [...opts.listMapKeys];
  return { json: withRules(withDoc(json, opts), opts.rules) };
}

/** map is an object with arbitrary keys and values of one schema. */
export function map<S extends AnySchema>(value: S, opts: Doc & { readonly maxProperties?: number; readonly rules?: readonly CelRule[] }): Schema<Record<string, Static<S>>, false> {
  const json: JsonSchemaProps = { type: 'object', additionalProperties: value.json };
  if (opts.maxProperties !== undefined) json.maxProperties = opts.maxProperties;
  return { json: withRules(withDoc(json, opts), opts.rules) };
}

/** opaque is an object the API server keeps as-is (for embedded Kubernetes types like Affinity). */
export function opaque(opts: Doc): Schema<Record<string, unknown>, false> {
  return { json: withDoc({ type: 'object', 'x-kubernetes-preserve-unknown-fields': true }, opts) };
}

interface ObjectOpts<R> extends Doc {
  readonly required?: readonly R[];
  readonly rules?: readonly CelRule[];
  /** defaultEmpty makes the API server create the object (and its defaults) when absent. */
  readonly defaultEmpty?: boolean;
}

/** obj is an object with known properties; unknown properties are pruned by the API server. */
export function obj<P extends Props, R extends keyof P & string = never>(
  props: P,
  opts: ObjectOpts<R> & { readonly defaultEmpty: true },
): Schema<ObjectOf<P, R>, true>;
export function obj<P extends Props, R extends keyof P & string = never>(props: P, opts: ObjectOpts<R>): Schema<ObjectOf<P, R>, false>;
export function obj<P extends Props, R extends keyof P & string = never>(props: P, opts: ObjectOpts<R>): Schema<ObjectOf<P, R>> {
  const properties: Record<string, JsonSchemaProps> = {};
  for (const key of Object.keys(props).sort()) properties[key] = props[key]!.json;
  const json: JsonSchemaProps = { type: 'object', properties };
  if (opts.required !== undefined && opts.required.length > 0) json.required = [...opts.required].sort();
  if (opts.defaultEmpty === true) json.default = {};
  return { json: withRules(withDoc(json, opts), opts.rules) };
}

/** describe returns a copy of a schema with another description (for reused building blocks). */
export function describe<S extends AnySchema>(schema: S, doc: Doc): S {
  return { ...schema, json: withDoc(schema.json, doc) };
}
