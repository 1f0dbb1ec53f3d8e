import type { FastifyInstance } from 'fastify';
import type { HttpServer } from '../../lib/httpserver/index.ts';
import type { AuthProxy } from './proxy.ts';
import type { ReloadOutcome } from '../../lib/config/index.ts';

/** RoutesOptions are what the route table needs. */
export interface RoutesOptions {
  readonly proxy: AuthProxy;
  /** reload re-reads the config and resolves with the outcome. */
  readonly reload: () => Promise<ReloadOutcome>;
  readonly reloadAuthKey: () => string;
}

/**
 * registerAuthProxyRoutes is the auth proxy's route table: `/-/reload` (any method: 200 with an empty
 * body once the config is reloaded or unchanged, 500 with the reason when the new one was rejected
 * and the previous one still serves) and every other path proxied. Built-in routes (/health, /metrics, /flags, /debug/pprof/*) come from the HTTP server.
 */
export function registerAuthProxyRoutes(server: HttpServer, o: RoutesOptions): void {
  server.register(async (app: FastifyInstance) => {
    // Whatever body a reload request carries is ignored, never parsed.
    app.removeAllContentTypeParsers();
    app.addContentTypeParser('*', (_req, _payload, done) => done(null));
    app.all('/-/reload', { config: { authKey: o.reloadAuthKey, authKeyFlag: 'reloadAuthKey' } }, async (_req, reply) => {
      const outcome = await o.reload();
      if (outcome.ok) return reply.code(200).send('');
      return reply.code(500).type('text/plain').send(outcome.reason);
    });
  });
  // Proxied requests skip fastify's request lifecycle (the proxy's hot path). They carry their
  // user's credentials in Authorization, so -httpAuth.* (which would read the same header) does
  // not apply to them; the proxy authenticates them itself.
  server.registerRawCatchAll(o.proxy.handle);
}
