import { describe, expect, it } from 'vitest';
import { cleanPath, encodePath, normalizeRequestPath, PathError } from './request-path.ts';

describe('normalizeRequestPath', () => {
  it('decodes, cleans and re-encodes paths so rules see what backends act on', () => {
    const f = (raw: string, path: string, encoded: string) => expect(normalizeRequestPath(raw)).toEqual({ path, encoded });
    // already clean paths pass untouched
    f('/api/v1/query', '/api/v1/query', '/api/v1/query');
    f('/', '/', '/');
    f('/select/0:1/prometheus/api/v1/labels', '/select/0:1/prometheus/api/v1/labels', '/select/0:1/prometheus/api/v1/labels');
    // dot segments and repeated slashes
    f('/api/v1/../../admin', '/admin', '/admin');
    f('/api/./v1//query', '/api/v1/query', '/api/v1/query');
    f('/../../etc/passwd', '/etc/passwd', '/etc/passwd');
    f('//admin', '/admin', '/admin');
    f('/a/b/..', '/a/', '/a/');
    f('/a/.', '/a/', '/a/');
    f('/a/', '/a/', '/a/');
    // percent-encoded dots and slashes are decoded before cleaning
    f('/api/v1/%2e%2e/%2E%2E/admin', '/admin', '/admin');
    f('/api%2fv1%2Fquery', '/api/v1/query', '/api/v1/query');
    f('/a/%2e/b', '/a/b', '/a/b');
    // characters outside pchar are escaped for the backend
    f('/label/a%20b/values', '/label/a b/values', '/label/a%20b/values');
    f('/x%3Fy%23z', '/x?y#z', '/x%3Fy%23z');
    f('/%25', '/%', '/%25');
    f('/caf%C3%A9', '/café', '/caf%C3%A9');
  });

  it('rejects malformed escapes and non-origin-form targets with PathError', () => {
    const f = (raw: string, want: RegExp) => {
      expect(() => normalizeRequestPath(raw)).toThrow(PathError);
      expect(() => normalizeRequestPath(raw)).toThrow(want);
    };
    f('/a%zz', /malformed percent escape/);
    f('/a%', /malformed percent escape/);
    f('/%C3', /malformed percent escape/);
    f('http://evil/x', /must start with "\/"/);
    f('*', /must start with "\/"/);
    f('', /must start with "\/"/);
    f('/\uD800', /cannot encode request path/);
  });
});

describe('cleanPath and encodePath', () => {
  it('never climb above the root and keep separators', () => {
    const f = (p: string, want: string) => expect(cleanPath(p)).toBe(want);
    f('/..', '/');
    f('/../..', '/');
    f('/a/../../b', '/b');
    f('///', '/');
    expect(encodePath('/a b/c')).toBe('/a%20b/c');
    expect(encodePath("/a-._~!$&'()*+,;=:@")).toBe("/a-._~!$&'()*+,;=:@");
  });
});
