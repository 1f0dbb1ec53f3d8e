// node:https for fastify's server.js, loaded when a server is created with TLS (fast-resolve.ts).
import { deferredModule } from './deferred.ts';

const https = deferredModule(() => process.getBuiltinModule('node:https'));
export { https as 'module.exports' };
