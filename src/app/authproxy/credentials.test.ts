import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { basicKey, bearerKey, candidateKeys, queryCredentialKey, userAuthKeys } from './credentials.ts';
import { substituteEnv } from './env-template.ts';

const b64 = (s: string) => Buffer.from(s).toString('base64');

describe('candidateKeys', () => {
  it('canonicalises Basic, Bearer, Token and the influx Token user:pass form', () => {
    const f = (header: string, want: string[]) => expect(candidateKeys(header)).toEqual(want);
    f(`basic ${b64('u:p')}`, [basicKey('u', 'p')]);
    f(`BASIC   ${b64('u:p:q')}  `, [basicKey('u', 'p:q')]);
    f(`Basic ${b64('u:p').replace(/=+$/, '')}`, [basicKey('u', 'p')]);
    f(`Basic ${b64('tok')}`, [basicKey('tok', '')]);
    f('bearer abc', [bearerKey('abc')]);
    f('Token abc', [bearerKey('abc')]);
    f('Token user:pass', [bearerKey('user:pass'), basicKey('user', 'pass')]);
    // malformed: nothing to look up
    f('Basic !!!', []);
    f('Basic', []);
    f('Bearer ', []);
    f('Digest x', []);
    f('', []);
  });

  it('never throws on arbitrary headers', () => {
    fc.assert(fc.property(fc.string({ maxLength: 80 }), (h) => {
      expect(Array.isArray(candidateKeys(h))).toBe(true);
      expect(Array.isArray(candidateKeys(`Basic ${h}`))).toBe(true);
    }), { numRuns: 2000 });
  });
});

describe('userAuthKeys and queryCredentialKey', () => {
  it('builds the keys a user is matched by, and the influx u/p key', () => {
    expect(userAuthKeys({ username: 'u', password: 'p' })).toEqual([`Basic ${b64('u:p')}`]);
    expect(userAuthKeys({ username: 'u' })).toEqual([`Basic ${b64('u:')}`]);
    expect(userAuthKeys({ bearerToken: 't' })).toEqual(['Bearer t', `Basic ${b64('t:')}`]);
    const f = (q: string, want: string | undefined) => expect(queryCredentialKey(q)).toBe(want);
    f('db=x&u=alice&p=pw', basicKey('alice', 'pw'));
    f('u=alice', basicKey('alice', ''));
    f('p=pw', undefined);
    f('', undefined);
    f('user=x', undefined);
    f('u=%E0%A4%A&p=x', basicKey('\uFFFD%A', 'x'));
  });
});

describe('substituteEnv', () => {
  it('replaces %{NAME} and names undefined variables', () => {
    expect(substituteEnv('a: %{A}\nb: %{B}%{A}', { A: '1', B: '' })).toBe('a: 1\nb: 1');
    expect(substituteEnv('no placeholders %{', {})).toBe('no placeholders %{');
    expect(() => substituteEnv('%{X} %{Y} %{X}', {})).toThrow(/undefined environment variables %\{X\}, %\{Y\}/);
  });
});
