// readable-stream for @fastify/compress (fast-resolve.ts): Node's own node:stream. readable-stream
// is a copy of Node's stream module for other runtimes and older Nodes; the plugin takes `Readable`
// (for `Readable.from`) from it in its index and `Transform` in lib/utils.js, both parts of the
// same public API in node:stream, which every server has loaded already. The copy is 31 files
// (readable-stream, string_decoder, safe-buffer and the `process` shim) on every start.
const stream = process.getBuiltinModule('node:stream');
export { stream as 'module.exports' };
