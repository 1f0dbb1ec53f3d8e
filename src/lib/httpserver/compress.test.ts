import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { Readable } from 'node:stream';
import { gunzipSync } from 'node:zlib';
import { request } from 'undici';
import { afterEach, describe, expect, it } from 'vitest';
import { isFetchResponse } from './compress.ts';
import { startTestServer } from './server.test-helpers.ts';

let stop: (() => Promise<void>) | undefined;
afterEach(async () => {
  await stop?.();
  stop = undefined;
});

describe('isFetchResponse', () => {
  it('is true for fetch Responses only', () => {
    expect(isFetchResponse(new Response('x'))).toBe(true);
    expect(isFetchResponse(Response.json({ a: 1 }))).toBe(true);
    for (const x of ['x', Buffer.from('x'), Readable.from(['x']), new ReadableStream(), {}, null, undefined, 7, { [Symbol.toStringTag]: 'Response' }]) {
      expect(isFetchResponse(x)).toBe(false);
    }
  });

  it('replaces the test of the plugin', () => {
    const utils = createRequire(import.meta.url)('@fastify/compress/lib/utils.js') as { isFetchResponse: unknown };
    expect(utils.isFetchResponse).toBe(isFetchResponse);
  });
});

describe('response compression', () => {
  it('does not load undici (the global Response) to answer', () => {
    // A fresh process: the test runner has loaded undici itself. Node's own HTTP client asks, taken
    // without import(): node:http's ES module facade reads its undici-backed exports (WebSocket...).
    const script = `
      const { startTestServer } = await import(${JSON.stringify(new URL('./server.test-helpers.ts', import.meta.url).href)});
      const { get } = process.getBuiltinModule('node:http');
      const s = await startTestServer();
      for (const headers of [{}, { 'accept-encoding': 'gzip' }]) {
        for (const path of ['/echo', '/big', '/nope', '/metrics']) {
          await new Promise((resolve, reject) => get(s.base + path, { headers }, (res) => res.resume().on('end', resolve)).on('error', reject));
        }
      }
      await s.stop();
      console.log(JSON.stringify(process.moduleLoadList.filter((m) => m.includes('undici'))));`;
    const r = spawnSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8' });
    expect(r.status, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout.trim().split('\n').at(-1)!)).toEqual([]);
  }, 30_000);

  it('still compresses a fetch Response a route sends, with its status and headers', async () => {
    const body = 'y'.repeat(10_000);
    const s = await startTestServer({}, (server) => server.register(async (app) => {
      app.get('/fetch', async () => new Response(body, { status: 201, headers: { 'content-type': 'text/plain', 'x-from': 'fetch' } }));
    }));
    stop = s.stop;
    const res = await request(`${s.base}/fetch`, { headers: { 'accept-encoding': 'gzip' } });
    expect(res.statusCode).toBe(201);
    expect(res.headers['x-from']).toBe('fetch');
    expect(res.headers['content-encoding']).toBe('gzip');
    expect(gunzipSync(Buffer.from(await res.body.arrayBuffer())).toString()).toBe(body);
  });
});
