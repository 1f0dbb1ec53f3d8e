import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { redactText, redactUrl } from './redact.ts';

describe('redactText', () => {
  it('masks credentials embedded in text', () => {
    const f = (text: string, want: string) => expect(redactText(text)).toBe(want);
    f('http://user:pw@host/x', 'http://user:secret@host/x');
    f('/metrics?authKey=abc&x=1', '/metrics?authKey=secret&x=1');
    f('/write?u=bob&p=pw', '/write?u=bob&p=secret');
    f('Authorization: Bearer eyJhbGciOi.x.y', 'Authorization: Bearer secret');
    f('nothing here', 'nothing here');
  });
});

describe('redactUrl', () => {
  it('hides passwords and auth keys, and shows the rest as given', () => {
    const f = (u: string, want: string) => expect(redactUrl(u)).toBe(want);
    f('http://user:pw@host/x?authKey=abc&x=1', 'http://user:secret@host/x?authKey=secret&x=1');
    f('http://host/x', 'http://host/x');
    f('http://host', 'http://host');
    f('http://:pw@host:8428', 'http://:secret@host:8428');
    f('not a url user:pw@', 'not a url user:pw@');
    f('s3://u:p w@bucket/dir?AUTHKEY=k#frag', 's3://u:secret@bucket/dir?AUTHKEY=secret#frag');
  });

  it('never shows the password of a URL with one', () => {
    const part = fc.stringMatching(/^[A-Za-z0-9._~!$&'()*+,;=%-]{1,20}$/);
    fc.assert(fc.property(part, part, fc.domain(), (user, password, host) => {
      const shown = redactUrl(`https://${user}:${password}@${host}/api?x=1`);
      expect(shown).toBe(`https://${user}:secret@${host}/api?x=1`);
    }));
  });
});
