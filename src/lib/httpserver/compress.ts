// Response compression: @fastify/compress, with its test for a fetch Response made cheap.
import type fastifyCompress from '@fastify/compress';
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);

/**
 * isFetchResponse is true for a WHATWG fetch Response. @fastify/compress asks `payload instanceof
 * Response` of every reply it sees; reading Node's global `Response` loads Node's bundled undici
 * the first time (~50–100 ms of CPU, on the first answer of every process: issue 18 item 4). A
 * Response's Object.prototype.toString is "[object Response]" (fastify's own reply.send tests it
 * that way), so only objects tagged so go on to the exact test, and an object can be a Response
 * only once undici is loaded anyway.
 */
export function isFetchResponse(obj: unknown): boolean {
  return obj !== null && typeof obj === 'object' && Object.prototype.toString.call(obj) === '[object Response]' && obj instanceof Response;
}

// The plugin's index takes isFetchResponse from lib/utils.js when it is loaded (destructuring), so
// the test is replaced in that module's exports first. compress.test.ts checks that it took.
const utils = require('@fastify/compress/lib/utils.js') as { isFetchResponse: (obj: unknown) => boolean };
utils.isFetchResponse = isFetchResponse;

/** compress is @fastify/compress's plugin. */
export const compress = require('@fastify/compress') as typeof fastifyCompress;
