import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { formatTenant, parseTenant } from './tenant.ts';

describe('parseTenant', () => {
  it('reads accountID and accountID:projectID', () => {
    const f = (text: string, accountID: number, projectID: number) => expect(parseTenant(text)).toEqual({ accountID, projectID });
    f('0', 0, 0);
    f('42', 42, 0);
    f('42:7', 42, 7);
    f('4294967295:4294967295', 4294967295, 4294967295);
  });

  it('rejects everything else, naming the text', () => {
    const f = (text: string) => expect(() => parseTenant(text)).toThrow(`invalid tenant ${JSON.stringify(text)}`);
    // empty parts, signs, leading zeros, non-digits, overflow, extra parts
    f('');
    f(':1');
    f('1:');
    f('-1');
    f('+1');
    f('01');
    f('1:02');
    f('1.5');
    f('abc');
    f('4294967296');
    f('1:2:3');
    f(' 1');
  });

  it('round-trips through formatTenant and never throws anything but an Error', () => {
    const id = fc.integer({ min: 0, max: 0xffff_ffff });
    fc.assert(fc.property(id, id, (accountID, projectID) => {
      expect(parseTenant(formatTenant({ accountID, projectID }))).toEqual({ accountID, projectID });
    }));
    fc.assert(fc.property(fc.string(), (s) => {
      try {
        const t = parseTenant(s);
        expect(formatTenant(t) === s || `${t.accountID}` === s).toBe(true);
      } catch (err) {
        expect(err).toBeInstanceOf(Error);
      }
    }));
  });
});
