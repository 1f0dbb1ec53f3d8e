import { describe, expect, it } from 'vitest';
import { downstreamResponseHeaders, extraHeaders, NO_EXTRA_HEADERS, upstreamRequestHeaders } from './headers.ts';

describe('upstreamRequestHeaders', () => {
  it('drops hop-by-hop, Host and Expect, replaces configured headers and appends X-Forwarded-For', () => {
    const f = (raw: string[], extra: Array<[string, string]>, want: string[]) =>
      expect(upstreamRequestHeaders(raw, '10.0.0.9', extra.length === 0 ? NO_EXTRA_HEADERS : extraHeaders(extra.map(([name, value]) => ({ name, value }))))).toEqual(want);
    f(['Host', 'proxy:8427', 'Authorization', 'Basic eDp5', 'Accept', '*/*'], [], ['Authorization', 'Basic eDp5', 'Accept', '*/*', 'x-forwarded-for', '10.0.0.9']);
    f(['Connection', 'keep-alive, X-Secret', 'X-Secret', 's', 'Keep-Alive', 'timeout=5', 'Transfer-Encoding', 'chunked', 'TE', 'trailers', 'Upgrade', 'h2c', 'Expect', '100-continue', 'Proxy-Authorization', 'x'], [],
      ['x-forwarded-for', '10.0.0.9']);
    f(['X-Forwarded-For', '1.1.1.1', 'x-forwarded-for', '2.2.2.2'], [], ['x-forwarded-for', '1.1.1.1, 2.2.2.2, 10.0.0.9']);
    // configured headers win over the client's, whatever the case
    f(['x-scope-orgid', 'evil', 'A', '1'], [['X-Scope-OrgID', 'tenant-a']], ['A', '1', 'X-Scope-OrgID', 'tenant-a', 'x-forwarded-for', '10.0.0.9']);
    // a Connection header cannot remove configured headers
    f(['Connection', 'X-Scope-OrgID'], [['X-Scope-OrgID', 't']], ['X-Scope-OrgID', 't', 'x-forwarded-for', '10.0.0.9']);
  });
});

describe('downstreamResponseHeaders', () => {
  it('drops hop-by-hop headers and those named by Connection; expands repeated headers', () => {
    const f = (h: Record<string, string | string[]>, want: string[]) => expect(downstreamResponseHeaders(h)).toEqual(want);
    f({ 'content-type': 'text/plain', connection: 'keep-alive, X-Internal', 'x-internal': '1', 'keep-alive': 'timeout=5', 'set-cookie': ['a', 'b'] },
      ['content-type', 'text/plain', 'set-cookie', 'a', 'set-cookie', 'b']);
    f({ 'transfer-encoding': 'chunked', 'content-length': '5' }, ['content-length', '5']);
    f({ connection: ['close', 'x-a'], 'x-a': '1', 'x-b': '2' }, ['x-b', '2']);
  });
});
