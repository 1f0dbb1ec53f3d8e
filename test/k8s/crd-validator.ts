// Validates custom resources the way the API server does for a structural CRD: prune unknown
// fields, apply defaults, check the OpenAPI schema (ajv) and the x-kubernetes-validations CEL
// rules (our CEL subset), including transition rules against the old object.
import { Ajv } from 'ajv';
import type { ValidateFunction } from 'ajv';
import addFormatsModule from 'ajv-formats';
import type { JsonSchemaProps } from '../../operator/api/schema.ts';
import { applyDefaults, prune } from '../../operator/api/structural.ts';
import { evaluate, parseCel } from './cel/index.ts';
import type { CelExpr } from './cel/index.ts';

/** CrdLike is the part of a CustomResourceDefinition the validator reads. */
export interface CrdLike {
  readonly spec: {
    readonly group: string;
    readonly names: { readonly kind: string; readonly plural: string };
    readonly versions: readonly { readonly name: string; readonly schema: { readonly openAPIV3Schema: JsonSchemaProps } }[];
  };
}

/** ValidationResult holds the admitted object (pruned and defaulted) or the causes of rejection. */
export type ValidationResult = { readonly ok: true; readonly object: Record<string, unknown> } | { readonly ok: false; readonly errors: readonly string[] };

const addFormats = addFormatsModule as unknown as (ajv: Ajv) => Ajv;
const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

function newAjv(): Ajv {
  const ajv = new Ajv({ allErrors: true, strict: true, strictTypes: false, strictTuples: false, validateFormats: true });
  addFormats(ajv);
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

/** CrdValidator admits or rejects objects of one CRD version. */
export class CrdValidator {
  readonly #schema: JsonSchemaProps;
  readonly #ajvValidate: ValidateFunction;
  readonly #compiled = new Map<string, CelExpr>();

  constructor(crd: CrdLike, version?: string) {
    const v = version === undefined ? crd.spec.versions[0] : crd.spec.versions.find((x) => x.name === version);
    if (v === undefined) throw new Error(`CRD ${crd.spec.names.plural}.${crd.spec.group} has no version ${version ?? '(any)'}`);
    this.#schema = v.schema.openAPIV3Schema;
    this.#ajvValidate = newAjv().compile(this.#schema);
    this.#compileRules(this.#schema, '');
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

  /** admit prunes, defaults and validates `obj`; `old` enables transition rules (updates). */
  admit(obj: unknown, old?: unknown): ValidationResult {
    if (!isObject(obj)) return { ok: false, errors: ['object must be a JSON object'] };
    const { metadata, ...rest } = obj;
    const body = applyDefaults(this.#schema, prune(this.#schema, rest)) as Record<string, unknown>;
    const candidate = { ...body, metadata: isObject(metadata) ? metadata : {} };
    const errors: string[] = [];
    if (!this.#ajvValidate(candidate)) {
      for (const e of this.#ajvValidate.errors ?? []) errors.push(`${e.instancePath.replace(/^\//, '').replaceAll('/', '.') || '<root>'}: ${e.message ?? 'invalid'}`);
    }
    if (errors.length === 0) {
      const oldBody = isObject(old) ? (applyDefaults(this.#schema, prune(this.#schema, { ...old, metadata: undefined })) as Record<string, unknown>) : undefined;
      this.#checkRules(this.#schema, candidate, oldBody, '', errors);
    }
    return errors.length === 0 ? { ok: true, object: candidate } : { ok: false, errors };
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
        errors.push(`${path || '<root>'}: Invalid value: rule ${JSON.stringify(r.rule)} failed to evaluate: ${(err as Error).message}`);
        continue;
      }
      if (!passed) errors.push(`${path || '<root>'}: Invalid value: ${r.message}`);
    }
    if (isObject(value) && schema.properties !== undefined) {
      for (const [name, sub] of Object.entries(schema.properties)) {
        const oldChild = isObject(old) ? old[name] : undefined;
        this.#checkRules(sub, value[name], oldChild, path === '' ? name : `${path}.${name}`, errors);
      }
    } else if (isObject(value) && schema.additionalProperties !== undefined) {
      for (const [name, v] of Object.entries(value)) {
        this.#checkRules(schema.additionalProperties, v, isObject(old) ? old[name] : undefined, `${path}[${name}]`, errors);
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
