// node:http2 for fastify's server.js, loaded when an HTTP/2 server is created (fast-resolve.ts).
import { deferredModule } from './deferred.ts';

const http2 = deferredModule(() => process.getBuiltinModule('node:http2'));
export { http2 as 'module.exports' };
