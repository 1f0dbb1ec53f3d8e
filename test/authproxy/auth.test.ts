import { connect } from 'node:net';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Backend, basic, type ProxyUnderTest, startBackend, startProxy } from './harness.ts';

let secret: Backend;
let ops2: Backend;
let publicBackend: Backend;
let proxy: ProxyUnderTest;
let open: ProxyUnderTest;

const config = (withUnauthorized: boolean) => `
users:
- username: alice
  password: alicepw
  url_prefix: "${'SECRET'}/a?extra_label=tenant%3Dalice"
- bearer_token: robot-token
  name: robot
  url_prefix: "${'SECRET'}/robot"
- username: ops
  password: one
  name: ops-one
  url_prefix: "${'SECRET'}/ops1"
- username: ops
  password: two
  name: ops-two
  url_prefix: "${'OPS2'}/ops2"
- username: influx
  password: ipw
  url_prefix: "${'SECRET'}/influx"
${withUnauthorized ? `unauthorized_user:\n  url_prefix: "PUBLIC/public"` : ''}
`;

beforeAll(async () => {
  secret = await startBackend('secret');
  ops2 = await startBackend('ops2');
  publicBackend = await startBackend('public');
  const yaml = (u: boolean) => config(u).replaceAll('SECRET', secret.url).replaceAll('OPS2', ops2.url).replaceAll('PUBLIC', publicBackend.url);
  proxy = await startProxy(yaml(false));
  open = await startProxy(yaml(true));
});
afterAll(async () => {
  await proxy.stop();
  await open.stop();
  await Promise.all([secret.kill(), ops2.kill(), publicBackend.kill()]);
});

async function get(base: string, path: string, headers: Record<string, string> = {}) {
  const r = await request(`${base}${path}`, { headers });
  return { status: r.statusCode, headers: r.headers, text: await r.body.text() };
}

describe('credentials', () => {
  it('routes each kind of credentials to its user', async () => {
    const f = async (path: string, headers: Record<string, string>, want: string) => {
      const r = await get(proxy.base, path, headers);
      expect(r.status, r.text).toBe(200);
      expect(r.text).toContain(want);
    };
    await f('/q', { authorization: basic('alice', 'alicepw') }, 'secret GET /a/q?extra_label=tenant%3Dalice');
    await f('/q', { authorization: `basic ${Buffer.from('alice:alicepw').toString('base64').replace(/=+$/, '')}` }, '/a/q');
    await f('/q', { authorization: 'Bearer robot-token' }, 'GET /robot/q');
    await f('/q', { authorization: 'Token robot-token' }, 'GET /robot/q');
    await f('/q', { authorization: basic('robot-token', '') }, 'GET /robot/q');
    // same username, different passwords, told apart
    await f('/q', { authorization: basic('ops', 'one') }, 'secret GET /ops1/q');
    await f('/q', { authorization: basic('ops', 'two') }, 'ops2 GET /ops2/q');
    // influx-style credentials
    await f('/write?db=x&u=influx&p=ipw', {}, 'GET /influx/write?db=x&u=influx&p=ipw');
    await f('/write', { authorization: 'Token influx:ipw' }, 'GET /influx/write');
  });

  it('answers 401 without credentials, naming the missing header', async () => {
    const r = await get(proxy.base, '/q');
    expect(r.status).toBe(401);
    expect(r.headers['www-authenticate']).toBe('Basic realm="Restricted"');
    expect(r.text).toMatch(/missing "Authorization" request header/);
  });

  it('answers 401 Unauthorized for unknown credentials, counts and logs them without the secret', async () => {
    const before = await errorCount(proxy.base, 'invalid_auth_token');
    const r = await get(proxy.base, '/q', { authorization: basic('alice', 'wrong') });
    expect([r.status, r.text]).toEqual([401, 'Unauthorized']);
    expect(await errorCount(proxy.base, 'invalid_auth_token')).toBe(before + 1);
    expect(proxy.logs.join('\n')).toMatch(/cannot authorize request from 127\.0\.0\.1 to "\/q": unknown credentials/);
    expect(proxy.logs.join('\n')).not.toContain('wrong');
  });

  it('sends requests without or with unknown credentials to unauthorized_user when configured', async () => {
    expect((await get(open.base, '/x')).text).toBe('public GET /public/x 0');
    expect((await get(open.base, '/x', { authorization: 'Bearer nope' })).text).toBe('public GET /public/x 0');
    expect((await get(open.base, '/x', { authorization: basic('alice', 'alicepw') })).text).toContain('secret GET /a/x');
  });
});

describe('no request reaches a backend without matching credentials', () => {
  it('rejects malformed Authorization headers, with the proxy staying up', async () => {
    const seenBefore = secret.seen.length + ops2.seen.length;
    const malformed = [
      'Basic', 'Basic ', 'Basic !!!!', 'Basic YWxpY2U6', `Basic ${Buffer.from('alice:alicepw').toString('base64')}x`, 'Bearer', 'Bearer  ',
      'Token', 'Token :', 'Token alice:', 'Negotiate abc', 'alicepw', `Basic ${'A'.repeat(8000)}`, 'Bearer robot-token2', 'Bearer ROBOT-TOKEN',
      `Basic ${Buffer.from('alice:alicepw\0').toString('base64')}`, 'Basic\talice', '\u00ff\u00fe',
    ];
    for (const h of malformed) {
      const r = await get(proxy.base, '/q', { authorization: h });
      expect(r.status, `authorization ${JSON.stringify(h.slice(0, 40))}`).toBe(401);
    }
    expect(secret.seen.length + ops2.seen.length).toBe(seenBefore);
    expect((await get(proxy.base, '/health')).status).toBe(200);
  });

  it('answers 431 to oversized headers and keeps serving', async () => {
    const status = await rawRequest(proxy.port, `GET /q HTTP/1.1\r\nHost: x\r\nAuthorization: ${basic('alice', 'alicepw')}\r\nX-Big: ${'a'.repeat(70_000)}\r\n\r\n`);
    expect(status).toMatch(/^HTTP\/1\.1 431/);
    expect((await get(proxy.base, '/q', { authorization: basic('alice', 'alicepw') })).status).toBe(200);
  });

  it('rejects requests with a malformed request line or duplicate Authorization without proxying them', async () => {
    const seenBefore = secret.seen.length;
    expect(await rawRequest(proxy.port, 'GET /q HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer robot-token\r\nAuthorization: Bearer x\r\n\r\n')).toMatch(/^HTTP\/1\.1 400/);
    expect(await rawRequest(proxy.port, 'GET http://evil/q HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer robot-token\r\n\r\n')).toMatch(/^HTTP\/1\.1 (400|404)/);
    expect(await rawRequest(proxy.port, 'GARBAGE\r\n\r\n')).toMatch(/^HTTP\/1\.1 400/);
    expect(secret.seen.length).toBe(seenBefore);
  });
});

async function errorCount(base: string, reason: string): Promise<number> {
  const text = await (await request(`${base}/metrics`)).body.text();
  const m = new RegExp(`^authproxy_http_request_errors_total\\{reason="${reason}"\\} (\\d+)`, 'm').exec(text);
  return m === null ? 0 : Number(m[1]);
}

/** rawRequest writes bytes on a fresh connection and returns the first response line (or "closed"). */
export function rawRequest(port: number, data: string): Promise<string> {
  return new Promise((resolve) => {
    const s = connect(port, '127.0.0.1');
    let out = '';
    s.on('data', (d) => {
      out += d.toString('latin1');
      if (out.includes('\r\n')) {
        s.destroy();
        resolve(out.split('\r\n')[0]!);
      }
    });
    s.on('error', () => resolve(out === '' ? 'closed' : out.split('\r\n')[0]!));
    s.on('close', () => resolve(out === '' ? 'closed' : out.split('\r\n')[0]!));
    s.write(data);
  });
}
