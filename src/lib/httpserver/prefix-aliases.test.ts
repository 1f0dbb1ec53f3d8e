import fc from 'fast-check';
import Fastify, { type FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { aliasesOf, PrefixAliases } from './prefix-aliases.ts';

// Two apps that must answer every request the same: one registers each route again under
// /prometheus (as the single node did), the other declares /prometheus as the routes' alias.
const ROUTES = ['/api/v1/query', '/api/v1/label/:name/values', '/federate', '/metrics/find'];
const PREFIX = '/base';

async function build(aliased: boolean): Promise<FastifyInstance> {
  const aliases = new PrefixAliases();
  const app = Fastify({ rewriteUrl: aliases.rewrite });
  app.addHook('onRoute', aliases.onRoute);
  await app.register(async (scope) => {
    for (const prefix of aliased ? [''] : ['', '/prometheus']) {
      for (const path of ROUTES) {
        scope.route({
          method: ['GET', 'POST'], url: `${prefix}${path}`, config: { prefixAliases: aliased ? ['/prometheus'] : [] },
          handler: async (req) => ({ route: path, params: req.params, query: req.query }),
        });
      }
    }
    // A route of its own under the alias (the insert routes' /prometheus/api/v1/write), never rewritten.
    scope.post('/prometheus/api/v1/write', async () => ({ route: 'write' }));
    scope.post('/api/v1/write', async () => ({ route: 'plain write' }));
  }, { prefix: PREFIX });
  await app.ready();
  return app;
}

let twice: FastifyInstance;
let once: FastifyInstance;
beforeAll(async () => {
  [twice, once] = await Promise.all([build(false), build(true)]);
});
afterAll(async () => {
  await Promise.all([twice.close(), once.close()]);
});

async function answer(app: FastifyInstance, method: 'GET' | 'POST', url: string) {
  const r = await app.inject({ method, url });
  return { status: r.statusCode, body: r.statusCode === 404 ? '' : r.body };
}

describe('PrefixAliases', () => {
  it('serves a route under its alias as a second route would', async () => {
    for (const url of [
      '/base/prometheus/api/v1/query?query=up&time=1', '/base/api/v1/query', '/base/prometheus/api/v1/label/job/values',
      '/base/prometheus/api/v1/label/a%2Fb/values?x=1', '/base/prometheus/api/v1/label//values', '/base/prometheus/federate',
      '/base/prometheus/metrics/find', '/base/prometheus', '/base/prometheus/', '/base/prometheus/prometheus/api/v1/query',
      '/prometheus/api/v1/query', '/base/prometheus/api/v1/query/', '/base/prometheus//api/v1/query', '/base/PROMETHEUS/api/v1/query',
    ]) {
      for (const method of ['GET', 'POST'] as const) expect(await answer(once, method, url), `${method} ${url}`).toEqual(await answer(twice, method, url));
    }
    expect(JSON.parse((await once.inject({ method: 'POST', url: '/base/prometheus/api/v1/write' })).body)).toEqual({ route: 'write' });
  });

  it('answers any path as two registrations would (property)', async () => {
    const segment = fc.constantFrom('base', 'prometheus', 'api', 'v1', 'query', 'label', 'values', 'job', 'federate', 'metrics', 'find', 'write', '', '%2F', 'a;b', ':x');
    await fc.assert(fc.asyncProperty(fc.array(segment, { maxLength: 7 }), fc.constantFrom('', '?a=1', '?', '?x=/prometheus/'), fc.constantFrom('GET' as const, 'POST' as const), async (segs, query, method) => {
      const url = `/${segs.join('/')}${query}`;
      expect(await answer(once, method, url)).toEqual(await answer(twice, method, url));
    }), { numRuns: 300 });
  });

  it('refuses aliases it cannot match without the router', () => {
    const a = new PrefixAliases();
    const route = (url: string, alias: string) => ({ url, method: 'GET', handler: async () => '', config: { prefixAliases: [alias] } }) as never;
    expect(() => a.onRoute(route('/x/*', '/prometheus'))).toThrow(/whole ":name" segments/);
    expect(() => a.onRoute(route('/x/:a(\\d+)', '/prometheus'))).toThrow(/whole ":name" segments/);
    expect(() => a.onRoute(route('/x', '/a/b'))).toThrow(/one static path segment/);
    expect(aliasesOf({ url: '/p/x', prefix: '/p', method: 'GET', handler: async () => '', config: { prefixAliases: ['/prometheus'] } } as never).map((x) => x.aliased)).toEqual(['/p/prometheus/x']);
  });
});
