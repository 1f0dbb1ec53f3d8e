// fast-check arbitraries of custom resources, derived from a CRD's structural schema and aimed at
// the edges where an API server's checks turn over: integers around minimum/maximum and the
// int32 range, strings at maxLength/minLength, pattern matches with one character added, enum
// near-misses, URIs Go's parser and RFC checkers disagree on, missing required fields, lists and
// maps one past maxItems/maxProperties, duplicate set/map-list items, nulls, wrong types,
// unknown fields, and the values the CEL rules compare or test by prefix.
import fc from 'fast-check';
import type { JsonSchemaProps } from '../../operator/api/schema.ts';

/** EDGE_STRINGS are values for fields, by property name, that sit on CEL rule edges. */
const EDGE_STRINGS: Record<string, readonly string[]> = {
  destination: ['s3://b', 's3://b/p', 'fs:///data', 'fs://data', 'fs://', 'gs://b/p', 'azblob://c/p', 'ftp://x', 'S3://b'],
  size: ['10Gi', '1', '0', '1.5Gi', '500m', '1e3', '1E', '-1Gi', '10GB', '+5'],
  tenant: ['0', '1:0', '42:7', '1:', ':1', 'a'],
  minAvailable: ['1', '50%', '0%', '%', '1.5'],
  maxUnavailable: ['1', '50%', '0%', '%'],
};

/** URIS probe Go's url.ParseRequestURI (the API server's `format: uri`). */
const URIS = [
  'http://tsdb:8428',
  'https://s3.example.com/bucket',
  'http://minio.storage:9000',
  'http://',
  'https://a/',
  '/relative/path',
  'relative',
  'minio:9000',
  'mailto:ops@example.com',
  'http://a b/',
  'http://a/b c',
  'http://host:port',
  'http://host:80:80',
  'http://[::1]:9000/x',
  'http://[::1',
  'http://user:pa ss@host',
  'http://user@host/p',
  'http://h#frag',
  'http://h/p#frag',
  'http://h/%zz',
  'http://h%41/',
  'http://h/p?q=1',
  '*',
  '//host/path',
  ':8080',
  '1http://x',
  'http://a\tb',
  'http://ü.example/',
  'HTTP://UPPER',
];

/** SUFFIXES turn a pattern match into a near-miss (or, for ".*" tails, another match). */
const SUFFIXES = [' ', '\r', '\n', '\t', 'x', '-', '.', '/', '%', ':', 'é', '\u2028'];

const MAP_KEYS = ['a', 'b', 'cpu', 'memory', 'kubernetes.io/os', 'search.maxUniqueTimeseries', '-retentionPeriod', '--x', 'a-', '', 'é'];

const int32Edges = [2 ** 31 - 1, 2 ** 31, -(2 ** 31), -(2 ** 31) - 1];

/** weighted builds a oneof from [weight, arbitrary] pairs, skipping weights of 0. */
const weighted = <T>(...parts: [number, fc.Arbitrary<T>][]): fc.Arbitrary<T> => fc.oneof(...parts.filter(([w]) => w > 0).map(([weight, arbitrary]) => ({ weight, arbitrary })));

function stringArb(s: JsonSchemaProps, name: string): fc.Arbitrary<string> {
  const parts: [number, fc.Arbitrary<string>][] = [];
  if (s.enum !== undefined) {
    const values = s.enum as string[];
    parts.push([30, fc.constantFrom(...values)]);
    parts.push([1, fc.constantFrom('', values[0]!.toLowerCase(), `${values[0]} `, 'Other')]);
  } else if (s.pattern !== undefined) {
    const match = fc.stringMatching(new RegExp(s.pattern), { size: 'xsmall' });
    parts.push([40, match]);
    parts.push([2, fc.tuple(match, fc.constantFrom(...SUFFIXES)).map(([m, x]) => m + x)]);
    parts.push([1, fc.tuple(fc.constantFrom(...SUFFIXES), match).map(([x, m]) => x + m)]);
    parts.push([1, fc.string({ maxLength: 6 })]);
  } else if (s.format === 'uri') {
    parts.push([6, fc.constantFrom(...URIS)], [8, fc.webUrl()], [1, fc.string({ maxLength: 8 })]);
  } else {
    parts.push([30, fc.string({ maxLength: 10 })], [3, fc.string({ unit: 'grapheme', maxLength: 4 })]);
  }
  const edges = EDGE_STRINGS[name];
  if (edges !== undefined) parts.push([20, fc.constantFrom(...edges)]);
  if (s.format === 'uri' && s.pattern !== undefined) parts.push([8, fc.constantFrom(...URIS)]);
  if (s.maxLength !== undefined) parts.push([1, fc.constantFrom('a'.repeat(s.maxLength), 'a'.repeat(s.maxLength + 1), `${'1'.repeat(s.maxLength - 1)}é`)]);
  if (s.minLength !== undefined) parts.push([1, fc.constant('a'.repeat(Math.max(0, s.minLength - 1)))]);
  return weighted(...parts);
}

function integerArb(s: JsonSchemaProps): fc.Arbitrary<number> {
  const lo = s.minimum ?? 0;
  const edges = [lo - 1, lo, lo + 1, ...(s.maximum === undefined ? [] : [s.maximum - 1, s.maximum, s.maximum + 1]), ...int32Edges];
  return weighted([30, fc.integer({ min: lo, max: Math.min(lo + 4, s.maximum ?? lo + 4) })], [2, fc.constantFrom(...edges)], [1, fc.integer()]);
}

/** wrongType is a value of any JSON type but the one the schema wants. */
function wrongType(s: JsonSchemaProps): fc.Arbitrary<unknown> {
  const all: [string, unknown][] = [['string', '1'], ['integer', 1], ['number', 1.5], ['boolean', true], ['array', []], ['object', {}]];
  const accepted = s['x-kubernetes-int-or-string'] === true ? ['integer', 'string'] : s.type === 'number' ? ['number', 'integer'] : [s.type ?? ''];
  return fc.constantFrom(...all.filter(([t]) => !accepted.includes(t)).map(([, v]) => v));
}

/** duplicated repeats one generated item, so sets and map lists get equal items or keys. */
const duplicated = (item: fc.Arbitrary<unknown>) => item.map((v) => [v, structuredClone(v)]);

function arrayArb(s: JsonSchemaProps, depth: number): fc.Arbitrary<unknown[]> {
  const item = valueArb(s.items!, '', depth + 1);
  const parts: [number, fc.Arbitrary<unknown[]>][] = [
    [30, fc.array(item, { maxLength: 2 })],
    [1, duplicated(item)],
  ];
  if (s.minItems !== undefined) parts.push([1, fc.array(item, { minLength: s.minItems, maxLength: s.minItems })]);
  // One past maxItems, built by repetition so large bounds stay cheap.
  if (s.maxItems !== undefined && s.maxItems <= 64) parts.push([1, item.map((v) => Array.from({ length: s.maxItems! + 1 }, () => structuredClone(v)))]);
  if (s.maxItems !== undefined && s.maxItems > 64) parts.push([1, fc.constant(Array.from({ length: s.maxItems + 1 }, (_, i) => (s.items!.type === 'string' ? `v${i}` : {})))]);
  return weighted(...parts);
}

function mapArb(s: JsonSchemaProps, depth: number): fc.Arbitrary<Record<string, unknown>> {
  const value = valueArb(s.additionalProperties!, '', depth + 1);
  const parts: [number, fc.Arbitrary<Record<string, unknown>>][] = [[30, fc.dictionary(fc.constantFrom(...MAP_KEYS), value, { maxKeys: 3 })]];
  if (s.maxProperties !== undefined) {
    const n = s.maxProperties;
    parts.push([1, fc.tuple(value, fc.constantFrom(n, n + 1)).map(([v, count]) => Object.fromEntries(Array.from({ length: count }, (_, i) => [`k${i}`, structuredClone(v)])))]);
  }
  return weighted(...parts);
}

function objectArb(s: JsonSchemaProps, depth: number): fc.Arbitrary<Record<string, unknown>> {
  if (s['x-kubernetes-preserve-unknown-fields'] === true) return fc.constantFrom({}, { a: 1 }, { secretKeyRef: { name: 'a', key: 'b' } }, { nested: { x: [1, null] } });
  if (s.additionalProperties !== undefined) return mapArb(s, depth);
  const props = s.properties ?? {};
  const required = s.required ?? [];
  // Resources stay small: each optional field is present with a chance that falls with depth,
  // and below depth 3 optional sections with fields of their own are left out.
  const absent = depth <= 1 ? 3 : depth === 2 ? 5 : 8;
  const fields: fc.Arbitrary<[string, unknown] | undefined>[] = [];
  for (const [name, sub] of Object.entries(props)) {
    const section = sub.type === 'object' && sub.properties !== undefined;
    if (depth >= 4 && section && !required.includes(name)) continue;
    const value = valueArb(sub, name, depth + 1).map((v): [string, unknown] => [name, v]);
    fields.push(required.includes(name) ? weighted<[string, unknown] | undefined>([30, value], [1, fc.constant(undefined)]) : weighted<[string, unknown] | undefined>([absent, fc.constant(undefined)], [2, value]));
  }
  return fc.tuple(fc.tuple(...fields), fc.constantFrom(...Array.from({ length: 29 }, () => false), true)).map(([entries, unknown]) => {
    const out = Object.fromEntries(entries.filter((e) => e !== undefined));
    if (unknown) out['unknownField'] = 1;
    return out;
  });
}

/** valueArb generates mostly well-typed values for a schema, with nulls and wrong types mixed in. */
export function valueArb(s: JsonSchemaProps, name: string, depth: number): fc.Arbitrary<unknown> {
  let typed: fc.Arbitrary<unknown>;
  if (s['x-kubernetes-int-or-string'] === true) {
    typed = weighted<unknown>([3, integerArb({ minimum: 0 })], [4, stringArb({ type: 'string', ...(s.pattern === undefined ? {} : { pattern: s.pattern }) }, name)]);
  } else if (s.type === 'string') typed = stringArb(s, name);
  else if (s.type === 'integer') typed = integerArb(s);
  else if (s.type === 'boolean') typed = fc.boolean();
  else if (s.type === 'array') typed = arrayArb(s, depth);
  else if (s.type === 'object') typed = objectArb(s, depth);
  else throw new Error(`no arbitrary for schema type ${String(s.type)} of "${name}"`);
  return weighted<unknown>([80, typed], [1, fc.constant(null)], [1, wrongType(s)]);
}

/** specArb generates spec values of a kind from its CRD spec schema. */
export const specArb = (spec: JsonSchemaProps): fc.Arbitrary<unknown> => weighted<unknown>([30, objectArb(spec, 1)], [1, fc.constant(undefined)], [1, fc.constant(null)]);
