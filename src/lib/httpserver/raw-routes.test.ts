import { describe, expect, it } from 'vitest';
import { RawCatchAllTable } from './raw-routes.ts';

describe('RawCatchAllTable', () => {
  it('claims only paths fastify would surely route to the catch-all', () => {
    const t = new RawCatchAllTable('');
    for (const r of ['/health', '/metrics', '/debug/pprof/', '/-/reload', '/things/:id/x', '/files/*']) t.addRoute(r);
    const f = (url: string, want: boolean) => expect(t.claims(url), url).toBe(want);
    f('/api/v1/query?query=up', true);
    f('/', true);
    f('/x?a=%2F', true);
    f('/metrics/', true);
    f('/debug/pprof', true);
    f('/Health', true);
    f('/health', false);
    f('/health?x=1', false);
    f('/metrics', false);
    f('/-/reload?authKey=k', false);
    f('/things/7/x', false);
    f('/things/', false);
    f('/thing', true);
    f('/files/a', false);
    f('/metric%73', false);
    f('/a;b', false);
    f('/a#b', false);
    f('http://host/x', false);
    f('*', false);
    f('', false);
  });

  it('claims nothing outside -http.pathPrefix, and leaves the bare prefix to fastify', () => {
    const t = new RawCatchAllTable('/strata');
    t.addRoute('/strata/health');
    const f = (url: string, want: boolean) => expect(t.claims(url), url).toBe(want);
    f('/strata/api/v1/query', true);
    f('/strata/', true);
    f('/strata/health', false);
    f('/strata', false);
    f('/strata?x', false);
    f('/stratax/y', false);
    f('/other/strata/x', false);
    f('/health', false);
  });
});
