import { describe, expect, it } from 'vitest';
import { redactText } from './redact.ts';

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
