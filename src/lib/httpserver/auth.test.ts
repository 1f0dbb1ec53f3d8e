import { describe, expect, it } from 'vitest';
import { checkBasicAuth, constantTimeEqual, parseBasicAuth } from './auth.ts';

const basic = (s: string) => `Basic ${Buffer.from(s).toString('base64')}`;

describe('basic auth', () => {
  it('parses and checks credentials', () => {
    expect(parseBasicAuth(basic('u:p:q'))).toEqual({ username: 'u', password: 'p:q' });
    expect(parseBasicAuth('Bearer x')).toBeUndefined();
    expect(parseBasicAuth(basic('nocolon'))).toBeUndefined();
    expect(parseBasicAuth('Basic !!!')).toBeUndefined();
    expect(checkBasicAuth(basic('u:p'), 'u', 'p')).toBe(true);
    expect(checkBasicAuth(basic('u:x'), 'u', 'p')).toBe(false);
    expect(checkBasicAuth(undefined, 'u', 'p')).toBe(false);
  });

  it('compares strings of any length', () => {
    expect(constantTimeEqual('abc', 'abc')).toBe(true);
    expect(constantTimeEqual('abc', 'abd')).toBe(false);
    expect(constantTimeEqual('abc', 'abcd')).toBe(false);
  });
});
