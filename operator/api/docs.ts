// Field reference for docs/operator.md, generated from the same schemas as the CRDs.
import { KINDS } from './kinds.ts';
import type { JsonSchemaProps } from './schema.ts';

/** FieldRow is one documented field. */
export interface FieldRow {
  readonly path: string;
  readonly type: string;
  readonly required: boolean;
  readonly defaultValue: unknown;
  readonly description: string;
  /** example is the documented example, the default, or the first allowed value. */
  readonly example: unknown;
  readonly rules: readonly string[];
}

function typeName(s: JsonSchemaProps): string {
  if (s['x-kubernetes-int-or-string'] === true) return 'int or string';
  if (s.enum !== undefined) return `enum: ${s.enum.join(', ')}`;
  if (s.type === 'array') return `[]${s.items === undefined ? 'any' : typeName(s.items)}`;
  if (s.type === 'object' && s.additionalProperties !== undefined) return `map[string]${typeName(s.additionalProperties)}`;
  if (s['x-kubernetes-preserve-unknown-fields'] === true) return 'object (free-form)';
  return s.format !== undefined && s.format !== 'int32' ? `${s.type} (${s.format})` : (s.type ?? 'any');
}

function exampleOf(s: JsonSchemaProps): unknown {
  if (s.example !== undefined) return s.example;
  if (s.default !== undefined && !(typeof s.default === 'object' && s.default !== null && Object.keys(s.default).length === 0)) return s.default;
  if (s.enum !== undefined) return s.enum[0];
  if (s.type === 'array' && s.items !== undefined) {
    const item = exampleOf(s.items);
    return item === undefined ? undefined : [item];
  }
  return undefined;
}

/** fieldRows walks a schema depth-first (properties sorted) into rows. */
export function fieldRows(schema: JsonSchemaProps, prefix: string, required = false): FieldRow[] {
  const rows: FieldRow[] = [];
  if (prefix !== '') {
    rows.push({
      path: prefix,
      type: typeName(schema),
      required,
      defaultValue: schema.default,
      description: schema.description ?? '',
      example: exampleOf(schema),
      rules: (schema['x-kubernetes-validations'] ?? []).map((r) => r.message),
    });
  }
  const req = new Set(schema.required ?? []);
  for (const [name, sub] of Object.entries(schema.properties ?? {})) rows.push(...fieldRows(sub, prefix === '' ? name : `${prefix}.${name}`, req.has(name)));
  if (schema.type === 'array' && schema.items?.properties !== undefined) {
    for (const [name, sub] of Object.entries(schema.items.properties)) rows.push(...fieldRows(sub, `${prefix}[].${name}`, (schema.items.required ?? []).includes(name)));
  }
  return rows;
}

/** isLeaf reports a row whose value is written directly (not an object of documented fields). */
export function isLeaf(row: FieldRow, rows: readonly FieldRow[]): boolean {
  return !rows.some((r) => r.path.startsWith(`${row.path}.`) || r.path.startsWith(`${row.path}[].`));
}

const cell = (text: string) => text.replaceAll('|', '\\|').replaceAll('\n', ' ');
const code = (v: unknown) => (v === undefined ? '' : `\`${cell(JSON.stringify(v))}\``);

/** fieldReference renders the Markdown field reference of every kind (spec fields only). */
export function fieldReference(): string {
  const out: string[] = [];
  for (const def of KINDS) {
    out.push(`### ${def.kind}`, '', def.description, '', '| Field | Type | Default | Example | Description |', '|---|---|---|---|---|');
    const rows = fieldRows(def.spec.json, 'spec');
    for (const r of rows.slice(1)) {
      const rules = r.rules.length === 0 ? '' : ` Rules: ${r.rules.map(cell).join('; ')}.`;
      const req = r.required ? ' **Required.**' : '';
      out.push(`| \`${r.path}\` | ${cell(r.type)} | ${code(r.defaultValue)} | ${isLeaf(r, rows) ? code(r.example) : '(object)'} | ${cell(r.description)}${req}${rules} |`);
    }
    out.push('');
  }
  return out.join('\n');
}

/** REFERENCE_BEGIN and REFERENCE_END delimit the generated part of docs/operator.md. */
export const REFERENCE_BEGIN = '<!-- BEGIN GENERATED FIELD REFERENCE (node operator/api/generate.ts) -->';
export const REFERENCE_END = '<!-- END GENERATED FIELD REFERENCE -->';

/** withReference replaces the generated section of a Markdown document. */
export function withReference(markdown: string): string {
  const begin = markdown.indexOf(REFERENCE_BEGIN);
  const end = markdown.indexOf(REFERENCE_END);
  if (begin < 0 || end < begin) throw new Error('docs/operator.md lacks the generated field reference markers');
  return `${markdown.slice(0, begin + REFERENCE_BEGIN.length)}\n\n${fieldReference()}\n${markdown.slice(end)}`;
}
