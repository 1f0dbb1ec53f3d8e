// Stand-ins for modules that a dependency requires when it loads but uses later or not at all
// (issue 18 item 4): the substitutes fast-resolve.ts hands to such requires on the start path.
// Imported by files the resolve hook names: it must stay free of project imports.

/**
 * deferredModule returns a stand-in for the module load() returns: reading or testing any of its
 * properties loads the module (once) and answers from it. For CommonJS consumers that keep the
 * module object and read its members when they use them (`const https = require('node:https')`
 * … `https.createServer(…)`); a consumer that destructures at load loads the module at load.
 */
export function deferredModule(load: () => object): object {
  let real: object | undefined;
  const module = () => (real ??= load());
  return new Proxy({}, {
    get: (_, key) => Reflect.get(module(), key),
    has: (_, key) => Reflect.has(module(), key),
  });
}
