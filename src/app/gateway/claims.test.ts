import { describe, expect, it } from 'vitest';
import { ClaimsError, parseClaims } from './claims.ts';

const EXP = 2_000_000_000;

describe('parseClaims', () => {
  it('reads every claim, with defaults for the optional ones', () => {
    const f = (access: unknown, want: object) => expect(parseClaims({ exp: EXP, svc_access: access })).toEqual({ exp: EXP, ...want });
    // the minimal form of SPEC A1: an empty tenant_id
    f({ tenant_id: {} }, { tenant: { accountID: 0, projectID: 0 }, extraLabels: undefined, extraFilters: undefined, mode: 'full' });
    f({}, { tenant: { accountID: 0, projectID: 0 }, extraLabels: undefined, extraFilters: undefined, mode: 'full' });
    f({ tenant_id: { account_id: 7, project_id: 4294967295 }, mode: 1 }, { tenant: { accountID: 7, projectID: 4294967295 }, extraLabels: undefined, extraFilters: undefined, mode: 'read' });
    f({ tenant_id: { account_id: 1 }, mode: 2, extra_labels: { team: 'a', env: '' }, extra_filters: ['{job="x"}', 'up'] }, {
      tenant: { accountID: 1, projectID: 0 }, extraLabels: [{ name: 'env', value: '' }, { name: 'team', value: 'a' }], extraFilters: ['{job="x"}', 'up'], mode: 'write',
    });
    // an empty claim is still defined: it removes the client's args
    f({ extra_labels: {}, extra_filters: [], mode: 0 }, { tenant: { accountID: 0, projectID: 0 }, extraLabels: [], extraFilters: [], mode: 'full' });
  });

  it('accepts svc_access as a string holding JSON', () => {
    const c = parseClaims({ exp: EXP, svc_access: JSON.stringify({ tenant_id: { account_id: 3, project_id: 2 }, mode: 1 }) });
    expect(c.tenant).toEqual({ accountID: 3, projectID: 2 });
    expect(c.mode).toBe('read');
  });

  it('rejects missing claims and claims of the wrong type, naming the claim', () => {
    const f = (payload: unknown, re: RegExp) => {
      expect(() => parseClaims(payload)).toThrow(ClaimsError);
      expect(() => parseClaims(payload)).toThrow(re);
    };
    const a = (access: unknown) => ({ exp: EXP, svc_access: access });
    f(null, /not a JSON object/);
    f([], /not a JSON object/);
    f({ svc_access: {} }, /no "exp"/);
    f({ exp: '2000000000', svc_access: {} }, /"exp" claim must be a number/);
    f({ exp: EXP }, /no "svc_access"/);
    f(a(null), /must be an object/);
    f(a([]), /must be an object/);
    f(a(5), /must be an object/);
    f(a('{"tenant_id":'), /not JSON/);
    f(a('"x"'), /must be an object/);
    // tenant ids: strings, negative, fractional, above uint32
    f(a({ tenant_id: { account_id: '1' } }), /account_id" must be an integer/);
    f(a({ tenant_id: { account_id: -1 } }), /account_id" must be an integer/);
    f(a({ tenant_id: { project_id: 1.5 } }), /project_id" must be an integer/);
    f(a({ tenant_id: { project_id: 4294967296 } }), /project_id" must be an integer/);
    f(a({ tenant_id: [] }), /tenant_id" must be an object/);
    f(a({ tenant_id: '1:0' }), /tenant_id" must be an object/);
    // mode
    f(a({ mode: 7 }), /"svc_access.mode" must be 0 \(full\), 1 \(read\) or 2 \(write\), not 7/);
    f(a({ mode: '1' }), /mode/);
    f(a({ mode: -1 }), /mode/);
    f(a({ mode: 1.5 }), /mode/);
    // extra_labels
    f(a({ extra_labels: ['a=b'] }), /extra_labels" must be an object/);
    f(a({ extra_labels: { a: 1 } }), /extra_labels.a" must be a string/);
    f(a({ extra_labels: { 'a-b': 'x' } }), /invalid label name "a-b"/);
    // extra_filters
    f(a({ extra_filters: '{a="b"}' }), /extra_filters" must be an array/);
    f(a({ extra_filters: [1] }), /extra_filters\[0\]" must be a string/);
    f(a({ extra_filters: ['{a="b"'] }), /extra_filters\[0\]" is not a series selector/);
    f(a({ extra_filters: ['rate(x[1m])'] }), /must be a plain series selector/);
    f(a({ extra_filters: ['x offset 1m'] }), /must be a plain series selector/);
    f(a({ extra_filters: ['{a=~".*"}'] }), /extra_filters\[0\]"/);
    f(a({ extra_filters: ['{a="b"}', '{}'] }), /extra_filters\[1\]"/);
  });
});
