import formbody from '@fastify/formbody';
import type { FastifyInstance } from 'fastify';

/**
 * formBodiesOnly makes app (an encapsulated fastify scope) parse url-encoded form bodies and accept
 * a body of any other type without parsing it (up to otherBodyLimitBytes, else 413). Prometheus-style
 * APIs take their arguments from the query string and form bodies only, and real clients POST with
 * other content types and empty bodies: vmalert sends `Content-Type: application/json` with the
 * arguments in the URL, which fastify's JSON parser refused with 400 ("Body cannot be empty").
 */
export async function formBodiesOnly(app: FastifyInstance, otherBodyLimitBytes = 64 * 1024): Promise<void> {
  app.removeAllContentTypeParsers();
  await app.register(formbody);
  app.addContentTypeParser('*', { parseAs: 'buffer', bodyLimit: otherBodyLimitBytes }, (_req, _body, done) => done(null, undefined));
}
