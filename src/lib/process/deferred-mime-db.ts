// mime-db for @fastify/compress (fast-resolve.ts), loaded at the first read of a member: the plugin
// looks a reply's type up in it only when the type is not one of its compressible patterns (JSON
// and text are), and its 185 KB JSON table is parsed at every start otherwise.
import { createRequire } from 'node:module';
import { deferredModule } from './deferred.ts';

// The mime-db the plugin would load, required by its path: Node caches a require's resolution by
// the requiring file's directory, so `require('mime-db')` from the plugin's directory would be
// given this stand-in again.
const fromPlugin = createRequire(new URL('./', import.meta.resolve('@fastify/compress')));
const mimeDb = deferredModule(() => fromPlugin(fromPlugin.resolve('mime-db')) as object);
export { mimeDb as 'module.exports' };
