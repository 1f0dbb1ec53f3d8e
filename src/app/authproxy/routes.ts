import { type FastifyInstance } from 'fastify';
import { type AuthProxy } from './proxy.ts';

/** RoutesOptions are what the route table needs. */
export interface RoutesOptions {
  readonly proxy: AuthProxy;
  /** reload starts a config reload in the background. */
  readonly reload: () => void;
  readonly reloadAuthKey: () => string;
}

/**
 * authProxyRoutes is the auth proxy's route table: `/-/reload` (any method) and every other path
 * proxied. Built-in routes (/health, /metrics, /flags, /debug/pprof/*) come from the HTTP server.
 */
export async function authProxyRoutes(app: FastifyInstance, o: RoutesOptions): Promise<void> {
  // Bodies are streamed to backends untouched: no parsing, no buffering, no size limit here.
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', (_req, _payload, done) => done(null));

  app.all('/-/reload', { config: { authKey: o.reloadAuthKey, authKeyFlag: 'reloadAuthKey' } }, async (_req, reply) => {
    o.reload();
    return reply.code(200).send('');
  });

  // Proxied requests carry their user's credentials in Authorization, so -httpAuth.* (which would
  // read the same header) does not apply to them; the proxy authenticates them itself.
  const proxied = { config: { public: true } };
  app.all('/', proxied, o.proxy.handle);
  app.all('/*', proxied, o.proxy.handle);
}
