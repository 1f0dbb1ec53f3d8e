import { type FastifyInstance } from 'fastify';
import { type HttpServer } from '../../lib/httpserver/index.ts';
import { type AuthProxy } from './proxy.ts';

/** RoutesOptions are what the route table needs. */
export interface RoutesOptions {
  readonly proxy: AuthProxy;
  /** reload starts a config reload in the background. */
  readonly reload: () => void;
  readonly reloadAuthKey: () => string;
}

/**
 * registerAuthProxyRoutes is the auth proxy's route table: `/-/reload` (any method) and every other
 * path proxied. Built-in routes (/health, /metrics, /flags, /debug/pprof/*) come from the HTTP server.
 */
export function registerAuthProxyRoutes(server: HttpServer, o: RoutesOptions): void {
  server.register(async (app: FastifyInstance) => {
    // Whatever body a reload request carries is ignored, never parsed.
    app.removeAllContentTypeParsers();
    app.addContentTypeParser('*', (_req, _payload, done) => done(null));
    app.all('/-/reload', { config: { authKey: o.reloadAuthKey, authKeyFlag: 'reloadAuthKey' } }, async (_req, reply) => {
      o.reload();
      return reply.code(200).send('');
    });
  });
  // Proxied requests skip fastify's request lifecycle (the proxy's hot path). They carry their
  // user's credentials in Authorization, so -httpAuth.* (which would read the same header) does
  // not apply to them; the proxy authenticates them itself.
  server.registerRawCatchAll(o.proxy.handle);
}
