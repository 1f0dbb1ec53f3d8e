// Validates custom resources the way the API server (apiextensions-apiserver 1.36) does for a
// structural CRD: prune unknown fields, apply defaults, drop nulls, check the OpenAPI schema (ajv,
// with Go's `format: uri` and RE2's `.`), list-type set/map uniqueness and the
// x-kubernetes-validations CEL rules (our CEL subset), including transition rules against the old
// object. Errors are worded as the API server words them (./crd-errors.ts). Constructing a
// validator checks the CRD's defaults against their schemas and rules, as the API server does
// when the CRD is created, and throws when the API server would refuse the CRD.
import { Ajv } from 'ajv';
import type { ValidateFunction } from 'ajv';
import addFormatsModule from 'ajv-formats';
import type { JsonSchemaProps } from '../../operator/api/schema.ts';
import { applyDefaults, dropNulls, prune } from '../../operator/api/structural.ts';
import { evaluate, InvalidData, parseCel } from './cel/index.ts';
import type { CelExpr } from './cel/index.ts';
import { goQuote, NOT_CHECKED, schemaErrors } from './crd-errors.ts';
import { isRequestURI } from './go-url.ts';
import { listErrors } from './crd-lists.ts';
import { replicasErrors } from './crd-scale.ts';
import { re2RegExp } from './re2.ts';

/** CrdLike is the part of a CustomResourceDefinition the validator reads. */
export interface CrdLike {
  readonly spec: {
    readonly group: string;
    readonly names: { readonly kind: string; readonly plural: string };
    readonly versions: readonly {
      readonly name: string;
      readonly schema: { readonly openAPIV3Schema: JsonSchemaProps };
      readonly subresources?: { readonly scale?: { readonly specReplicasPath: string; readonly statusReplicasPath: string } };
    }[];
  };
}

/** ValidationResult holds the admitted object (pruned and defaulted) or the causes of rejection. */
export type ValidationResult = { readonly ok: true; readonly object: Record<string, unknown> } | { readonly ok: false; readonly errors: readonly string[] };

const addFormats = addFormatsModule as unknown as (ajv: Ajv) => Ajv;
const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const re2Engine = Object.assign((pattern: string, flags: string) => re2RegExp(pattern, flags), { code: 're2RegExp' });

function newAjv(): Ajv {
  // verbose: errors carry their schema (crd-errors.ts words type errors of formatted strings by it).
  const ajv = new Ajv({ allErrors: true, verbose: true, strict: true, strictTypes: false, strictTuples: false, validateFormats: true, code: { regExp: re2Engine } });
  addFormats(ajv);
  ajv.addFormat('uri', isRequestURI);
  ajv.addFormat('int32', { type: 'number', validate: (n: number) => Number.isInteger(n) && n >= -(2 ** 31) && n < 2 ** 31 });
  ajv.addFormat('int64', { type: 'number', validate: (n: number) => Number.isSafeInteger(n) });
  for (const keyword of [
    'x-kubernetes-preserve-unknown-fields',
    'x-kubernetes-int-or-string',
    'x-kubernetes-list-type',
    'x-kubernetes-list-map-keys',
    'x-kubernetes-map-type',
    'x-kubernetes-validations',
    'x-kubernetes-embedded-resource',
    'example',
  ]) {
    ajv.addKeyword({ keyword });
  }
  return ajv;
}

/** celError is the API server's line for a rule that failed to evaluate (e.g. a missing field). */
const celError = (path: string, schema: JsonSchemaProps, err: Error, message: string) => `${path || '<nil>'}: Invalid value: "${schema.type ?? 'object'}": ${err.message} evaluating rule: ${message}`;

/**
 * celView is the value the CEL rules see: a list that passed the schema in a string field (see
 * typeError in ./crd-errors.ts) becomes InvalidData, which fails the rules that touch it.
 */
function celView(schema: JsonSchemaProps, value: unknown): unknown {
  if (schema.type === 'string' && Array.isArray(value)) return new InvalidData('invalid data, expected string, got []interface {}');
  if (Array.isArray(value)) return schema.items === undefined ? value : value.map((v) => celView(schema.items!, v));
  if (!isObject(value)) return value;
  if (schema.properties !== undefined) return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, schema.properties![k] === undefined ? v : celView(schema.properties![k]!, v)]));
  if (schema.additionalProperties !== undefined) return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, celView(schema.additionalProperties!, v)]));
  return value;
}

/**
 * trimmed keeps of a schema only what a value reaches (properties it has or requires), so that
 * checking a default does not compile the whole subtree below it.
 */
function trimmed(schema: JsonSchemaProps, value: unknown): JsonSchemaProps {
  const { properties, ...rest } = schema;
  if (properties === undefined) return schema;
  const keep = isObject(value) ? Object.keys(properties).filter((k) => k in value || (schema.required ?? []).includes(k)) : (schema.required ?? []);
  return { ...rest, properties: Object.fromEntries(keep.map((k) => [k, trimmed(properties[k]!, isObject(value) ? value[k] : undefined)])) };
}

/** CrdValidator admits or rejects objects of one CRD version. */
export class CrdValidator {
  readonly #schema: JsonSchemaProps;
  readonly #ajv = newAjv();
  readonly #ajvValidate: ValidateFunction;
  readonly #compiled = new Map<string, CelExpr>();
  readonly #replicaPaths: readonly string[];

  constructor(crd: CrdLike, version?: string) {
    const v = version === undefined ? crd.spec.versions[0] : crd.spec.versions.find((x) => x.name === version);
    const name = `${crd.spec.names.plural}.${crd.spec.group}`;
    if (v === undefined) throw new Error(`CRD ${name} has no version ${version ?? '(any)'}`);
    this.#schema = v.schema.openAPIV3Schema;
    const scale = v.subresources?.scale;
    this.#replicaPaths = scale === undefined ? [] : [scale.specReplicasPath, scale.statusReplicasPath];
    this.#ajvValidate = this.#ajv.compile(this.#schema);
    this.#compileRules(this.#schema, '');
    const problems: string[] = [];
    this.#checkDefaults(this.#schema, `spec.validation.openAPIV3Schema`, problems);
    if (problems.length > 0) throw new Error(`CustomResourceDefinition "${name}" is invalid: ${problems.join('; ')}`);
  }

  #compileRules(schema: JsonSchemaProps, path: string): void {
    for (const r of schema['x-kubernetes-validations'] ?? []) {
      try {
        this.#compiled.set(r.rule, parseCel(r.rule));
      } catch (err) {
        throw new Error(`cannot compile CEL rule at ${path || '<root>'} ${JSON.stringify(r.rule)}: ${(err as Error).message}`, { cause: err });
      }
    }
    for (const [name, sub] of Object.entries(schema.properties ?? {})) this.#compileRules(sub, `${path}.${name}`);
    if (schema.items !== undefined) this.#compileRules(schema.items, `${path}[]`);
    if (schema.additionalProperties !== undefined) this.#compileRules(schema.additionalProperties, `${path}{}`);
  }

  /**
   * checkDefaults validates each `default` as the API server does when it admits the CRD: the
   * value as written (no nested defaulting) must have no unknown fields, must match its schema,
   * and must pass the CEL rules of its schema and below (with oldSelf = self).
   */
  #checkDefaults(schema: JsonSchemaProps, path: string, problems: string[]): void {
    if (schema.default !== undefined) {
      const at = `${path}.default`;
      const dflt = schema.default;
      if (JSON.stringify(prune(schema, dflt)) !== JSON.stringify(dflt)) problems.push(`${at}: Invalid value: ${JSON.stringify(dflt)}: must not have unknown fields`);
      const validate = this.#ajv.compile(trimmed(schema, dflt));
      if (!validate(dflt)) problems.push(...schemaErrors(validate.errors ?? [], dflt).map((e) => `${at}${e.line.startsWith(':') ? '' : '.'}${e.line}`));
      else this.#checkRules(schema, dflt, dflt, at, problems);
    }
    for (const [name, sub] of Object.entries(schema.properties ?? {})) this.#checkDefaults(sub, `${path}.properties[${name}]`, problems);
    if (schema.items !== undefined) this.#checkDefaults(schema.items, `${path}.items`, problems);
    if (schema.additionalProperties !== undefined) this.#checkDefaults(schema.additionalProperties, `${path}.additionalProperties`, problems);
  }

  /** admit prunes, defaults and validates `obj`; `old` enables transition rules (updates). */
  admit(obj: unknown, old?: unknown): ValidationResult {
    if (!isObject(obj)) return { ok: false, errors: ['object must be a JSON object'] };
    const candidate = this.#structural(obj);
    const schema = this.#ajvValidate(candidate) ? [] : schemaErrors(this.#ajvValidate.errors ?? [], candidate);
    const errors = [...schema.map((e) => e.line), ...listErrors(this.#schema, candidate, ''), ...this.#replicaPaths.flatMap((p) => replicasErrors(candidate, p))];
    if (schema.some((e) => e.blocking)) errors.push(NOT_CHECKED);
    else this.#checkRules(this.#schema, celView(this.#schema, candidate), isObject(old) ? celView(this.#schema, this.#structural(old)) : undefined, '', errors);
    return errors.length === 0 ? { ok: true, object: candidate } : { ok: false, errors };
  }

  /** structural prunes unknown fields, applies defaults and drops nulls; metadata is kept as sent. */
  #structural(obj: Record<string, unknown>): Record<string, unknown> {
    const { metadata, ...rest } = obj;
    const body = dropNulls(this.#schema, applyDefaults(this.#schema, prune(this.#schema, rest))) as Record<string, unknown>;
    return { ...body, metadata: isObject(metadata) ? metadata : {} };
  }

  #checkRules(schema: JsonSchemaProps, value: unknown, old: unknown, path: string, errors: string[]): void {
    if (value === undefined || value === null) return;
    for (const r of schema['x-kubernetes-validations'] ?? []) {
      const expr = this.#compiled.get(r.rule)!;
      const transition = r.rule.includes('oldSelf');
      if (transition && old === undefined) continue;
      const env = new Map<string, unknown>([['self', value]]);
      if (transition) env.set('oldSelf', old);
      let passed: boolean;
      try {
        passed = evaluate(expr, env) === true;
      } catch (err) {
        errors.push(celError(path, schema, err as Error, r.message));
        continue;
      }
      if (!passed) errors.push(`${path || '<nil>'}: Invalid value: ${r.message}`);
    }
    if (isObject(value) && schema.properties !== undefined) {
      for (const [name, sub] of Object.entries(schema.properties)) {
        const oldChild = isObject(old) ? old[name] : undefined;
        this.#checkRules(sub, value[name], oldChild, path === '' ? name : `${path}.${name}`, errors);
      }
    } else if (isObject(value) && schema.additionalProperties !== undefined) {
      for (const [name, v] of Object.entries(value)) {
        this.#checkRules(schema.additionalProperties, v, isObject(old) ? old[name] : undefined, `${path}[${goQuote(name).slice(1, -1)}]`, errors);
      }
    } else if (Array.isArray(value) && schema.items !== undefined) {
      const keys = schema['x-kubernetes-list-map-keys'];
      value.forEach((item, i) => {
        // Only map lists correlate items with the old object (by key), as the API server does.
        const oldItem = keys !== undefined && Array.isArray(old) ? old.find((o) => keys.every((k) => isObject(o) && isObject(item) && o[k] === item[k])) : undefined;
        this.#checkRules(schema.items!, item, oldItem, `${path}[${i}]`, errors);
      });
    }
  }
}
