import { describe, expect, it } from 'vitest';
import { parseJSONFields } from './flags.ts';
import { checkTimezone } from './time.ts';

describe('parseJSONFields', () => {
  it('parses renames and rejects unknown fields', () => {
    expect(parseJSONFields('ts:timestamp,msg:message')).toEqual({ ts: 'timestamp', msg: 'message' });
    expect(parseJSONFields('')).toEqual({});
    expect(() => parseJSONFields('time:t')).toThrow(/bad entry "time:t"/);
    expect(() => parseJSONFields('ts')).toThrow(/bad entry/);
  });
});

describe('checkTimezone', () => {
  it('accepts UTC, Local and IANA zones, rejects the rest', () => {
    expect(() => checkTimezone('Europe/Berlin')).not.toThrow();
    expect(() => checkTimezone('Local')).not.toThrow();
    expect(() => checkTimezone('Mars/Olympus')).toThrow(/unknown time zone "Mars\/Olympus"/);
  });
});
