import { describe, expect, it } from 'vitest';
import { buildCrd } from '../../operator/api/crd.ts';
import { KINDS } from '../../operator/api/kinds.ts';
import type { JsonSchemaProps } from '../../operator/api/schema.ts';
import { goQuote } from './crd-errors.ts';
import { CrdValidator } from './crd-validator.ts';
import { isRequestURI } from './go-url.ts';
import { re2RegExp } from './re2.ts';

// The fake's CRD validation in the real API server's terms. test/realk8s/fake-agreement.test.ts
// holds it to apiextensions-apiserver 1.36; these cases keep the rules visible without a server.
const crdOf = (kind: string) => buildCrd(KINDS.find((k) => k.kind === kind)!);

/** withRule returns a CRD whose schema at `path` (property names) has `rule` as its only rule. */
function withRule(kind: string, path: string[], rule: string) {
  const crd = structuredClone(crdOf(kind));
  let node: JsonSchemaProps = crd.spec.versions[0]!.schema.openAPIV3Schema;
  for (const p of path) node = node.properties![p]!;
  node['x-kubernetes-validations'] = [{ rule, message: 'the rule' }];
  return crd;
}

describe('CrdValidator on CRDs', () => {
  it('accepts every generated CRD', () => {
    for (const def of KINDS) expect(() => new CrdValidator(buildCrd(def)), def.kind).not.toThrow();
  });

  it('refuses a CRD whose default fails a rule of its schema, as the API server does', () => {
    // The API server evaluates the rules on the default as written ({}), before nested defaulting.
    expect(() => new CrdValidator(withRule('TSDBCluster', ['spec'], 'self.replicationFactor <= self.storage.replicas'))).toThrow(
      'CustomResourceDefinition "tsdbclusters.strata.dev" is invalid: spec.validation.openAPIV3Schema.properties[spec].default: Invalid value: "object": no such key: replicationFactor evaluating rule: the rule',
    );
    expect(() => new CrdValidator(withRule('TSDBGateway', ['spec', 'rateLimit'], '!self.enabled || has(self.datasourceURL)'))).toThrow(
      'spec.validation.openAPIV3Schema.properties[spec].properties[rateLimit].default: Invalid value: "object": no such key: enabled evaluating rule: the rule',
    );
    expect(() => new CrdValidator(withRule('TSDBCluster', ['spec'], '!has(self.replicationFactor) || self.replicationFactor <= 3'))).not.toThrow();
  });

  it('refuses a CRD whose default does not match its schema, in the words of the API server', () => {
    const crd = structuredClone(crdOf('TSDBSingle'));
    const spec = crd.spec.versions[0]!.schema.openAPIV3Schema.properties!['spec']!.properties!;
    spec['paused']!.default = 'yes';
    spec['retentionPeriod']!.default = '3x';
    spec['backup']!.default = {};
    // Kubernetes 1.36 prints the empty path inside the message as is (two spaces).
    const at = 'spec.validation.openAPIV3Schema.properties[spec].properties';
    expect(() => new CrdValidator(crd)).toThrow(
      `CustomResourceDefinition "tsdbsingles.strata.dev" is invalid: ${at}[backup].default.destination: Required value; ` +
        `${at}[paused].default: Invalid value: "string":  in body must be of type boolean: "string"; ` +
        `${at}[retentionPeriod].default: Invalid value: "3x":  in body should match '^[0-9]+(\\.[0-9]+)?(h|d|w|y)?$'`,
    );
  });
});

describe('CrdValidator on custom resources', () => {
  const admit = (kind: string, spec: unknown) => {
    const res = new CrdValidator(crdOf(kind)).admit({ apiVersion: 'strata.dev/v1beta1', kind, metadata: { name: 'x' }, spec });
    return res.ok ? res.object['spec'] : res.errors;
  };

  it('drops nulls the API server drops, and defaults the ones with defaults', () => {
    expect(admit('TSDBSingle', { retentionPeriod: null, priorityClassName: null, nodeSelector: { a: null } })).toEqual({ retentionPeriod: '1', paused: false, service: { type: 'ClusterIP' }, nodeSelector: {} });
    expect(admit('TSDBSingle', { tolerations: [null] })).toEqual([
      'spec.tolerations[0]: Invalid value: "null": spec.tolerations[0] in body must be of type object: "null"',
      '<nil>: Invalid value: null: some validation rules were not checked because the object was invalid; correct the existing errors to complete validation',
    ]);
  });

  it('words type errors as go-openapi does, including a list passing as a formatted string', () => {
    const f = (value: unknown, want: unknown) => expect(admit('TSDBSingle', { backup: { destination: 's3://b', customS3Endpoint: value } })).toEqual(want);
    f(1, ['spec.backup.customS3Endpoint: Invalid value: "int64": spec.backup.customS3Endpoint in body must be of type uri: "int64"', expect.stringMatching(/not checked/)]);
    f(true, ['spec.backup.customS3Endpoint: Invalid value: "": spec.backup.customS3Endpoint in body must be of type uri: ""', expect.stringMatching(/not checked/)]);
    f(['http://a'], expect.objectContaining({ backup: expect.objectContaining({ customS3Endpoint: ['http://a'] }) }));
    expect(admit('TSDBCluster', { replicationFactor: true })).toContain('spec.replicationFactor: Invalid value: "": spec.replicationFactor in body must be of type int32: ""');
    expect(admit('TSDBCluster', { replicationFactor: '3' })).toContain('spec.replicationFactor: Invalid value: "string": spec.replicationFactor in body must be of type integer: "string"');
  });

  it('reports a repeated set item or map-list key once, at its first repeat', () => {
    expect(admit('TSDBSingle', { extraEnv: [{ name: 'a' }, { name: 'b' }, { name: 'a' }, { name: 'a' }, { name: 'b&' }, { name: 'b&' }] })).toEqual([
      'spec.extraEnv[2]: Duplicate value: {"name":"a"}',
      'spec.extraEnv[5]: Duplicate value: {"name":"b\\u0026"}',
    ]);
  });

  it('checks the replica count of the scale subresource', () => {
    expect(admit('TSDBGateway', { eula: true, target: { ref: { kind: 'TSDBCluster', name: 'c' } }, replicas: -1 })).toEqual([
      'spec.replicas: Invalid value: -1: spec.replicas in body should be greater than or equal to 0',
      '.spec.replicas: Invalid value: -1: should be a non-negative integer',
    ]);
  });
});

describe('Go semantics the API server applies', () => {
  it('isRequestURI follows url.ParseRequestURI', () => {
    const f = (s: string, want: boolean) => expect(isRequestURI(s), JSON.stringify(s)).toBe(want);
    f('http://minio:9000', true);
    f('/relative/path', true);
    f('mailto:x', true);
    f('minio:9000', true); // scheme "minio", opaque "9000"
    f('http://', true);
    f('*', true);
    f('relative', false);
    f('', false);
    f(':8080', false);
    f('http://a b/', false);
    f('http://a/b c', true);
    f('http://host:port', false);
    f('http://h#frag', false);
    f('http://h/p#frag', true);
    f('http://h/%zz', false);
    f('http://a\tb', false);
    f('http://[::1]:9000/x', true);
    f('http://[127.0.0.1]/', false);
    f('http://d[f', false);
  });

  it("re2RegExp gives '.' RE2's meaning", () => {
    expect(re2RegExp('^a=.*$').test('a=\r')).toBe(true);
    expect(new RegExp('^a=.*$', 'u').test('a=\r')).toBe(false);
    expect(re2RegExp('^a=.*$').test('a=\n')).toBe(false);
    expect(re2RegExp('^[.]$').test('x')).toBe(false);
  });

  it('goQuote is strconv.Quote', () => {
    expect(goQuote('a"b\\\n\x01\u2028é')).toBe('"a\\"b\\\\\\n\\x01\\u2028é"');
  });
});
