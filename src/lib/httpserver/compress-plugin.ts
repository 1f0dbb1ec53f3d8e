import type CompressPlugin from '@fastify/compress';
import { createRequire } from 'node:module';

// @fastify/compress checks every reply's payload with `payload instanceof Response` (and, when it
// would compress a payload that is not a Node stream, `instanceof ReadableStream`). Reading those
// globals is what loads them: Response loads Node's bundled undici (~110 internal modules, ~0.15
// CPU-s under load, at the first answer of every start; issue 18 item 4), ReadableStream the web
// streams. The plugin takes both checks from its lib/utils.js when index.js is first required, so
// they are replaced there before: the same test, asked first of the object's toStringTag, which a
// Response and a ReadableStream carry and strings, Buffers and Node streams do not. A Response or
// web stream payload is unwrapped exactly as before. A version of the plugin without these two
// functions is left as it is (tested in compress-plugin.test.ts).
const require = createRequire(import.meta.url);
const utils = require('@fastify/compress/lib/utils.js') as Record<string, unknown>;
const tagOf = (v: unknown): string => Object.prototype.toString.call(v);
if (typeof utils.isFetchResponse === 'function') {
  utils.isFetchResponse = (v: unknown): boolean => typeof v === 'object' && v !== null && tagOf(v) === '[object Response]' && v instanceof Response;
}
if (typeof utils.isWebReadableStream === 'function') {
  utils.isWebReadableStream = (v: unknown): boolean => typeof v === 'object' && v !== null && tagOf(v) === '[object ReadableStream]' && v instanceof ReadableStream;
}

/** compress is @fastify/compress with its payload checks that load no globals (see above). */
export const compress = require('@fastify/compress') as typeof CompressPlugin;
