import { spawnSync } from 'node:child_process';
import { afterEach, describe, expect, it } from 'vitest';
import { startTestServer } from './server.test-helpers.ts';

let stop: (() => Promise<void>) | undefined;
afterEach(async () => {
  await stop?.();
  stop = undefined;
});

describe('fastify schema compilers', () => {
  it('are not loaded by a server whose routes declare no schema', () => {
    // A fresh process: the test runner itself may have loaded ajv. (fastify's error serializer
    // needs two small files of fast-json-stringify, not its compiler.)
    const script = `
      const { startTestServer } = await import(${JSON.stringify(new URL('./server.test-helpers.ts', import.meta.url).href)});
      const s = await startTestServer();
      await fetch(s.base + '/echo');
      await s.stop();
      const { createRequire } = await import('node:module');
      const loaded = Object.keys(createRequire(import.meta.url).cache);
      console.log(JSON.stringify(loaded.filter((k) => /node_modules\\/(ajv|@fastify\\/ajv-compiler|@fastify\\/fast-json-stringify-compiler)\\//.test(k)).length));`;
    const r = spawnSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8' });
    expect(r.status, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout.trim().split('\n').at(-1)!)).toBe(0);
  }, 30_000);

  it('validate and serialize a route with a schema, loaded on first use', async () => {
    const s = await startTestServer({}, (server) => server.register(async (app) => {
      app.post('/typed', {
        schema: {
          body: { type: 'object', required: ['n'], properties: { n: { type: 'integer' } } },
          response: { 200: { type: 'object', properties: { twice: { type: 'integer' } } } },
        },
      }, async (req) => ({ twice: (req.body as { n: number }).n * 2, dropped: 'by the serializer' }));
    }));
    stop = s.stop;
    const post = (body: string) => fetch(`${s.base}/typed`, { method: 'POST', body, headers: { 'content-type': 'application/json' } });
    const bad = await post('{"n":"x"}');
    expect(bad.status).toBe(400);
    expect(await bad.text()).toContain('must be integer');
    const good = await post('{"n":21}');
    expect(good.status).toBe(200);
    expect(await good.json()).toEqual({ twice: 42 });
  });
});
