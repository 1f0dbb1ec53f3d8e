// undici's connection pool and connector without the rest of the package.
//
// `import … from 'undici'` loads its index, which requires every part of undici (fetch, WebSocket,
// caches, mocks, EventSource, interceptors): ~110 modules of its own and ~120 of Node's, ~21 MiB of
// RSS in each isolate that imports it, where Pool and buildConnector need ~20 modules (~9 MiB).
// The auth proxy runs one isolate per core, so this is paid per thread (docs/DECISIONS.md, "Auth
// proxy memory"). The classes are the very ones the index exports (the same modules, so the same
// require cache): the types come from the package's declarations. undici has no "exports" map,
// so its lib/ paths are reachable; a test pins that they stay the index's classes.
import { createRequire } from 'node:module';
import type * as Undici from 'undici';

const require = createRequire(import.meta.url);

/** Pool is undici's Pool (undici/lib/dispatcher/pool.js). */
export const Pool = require('undici/lib/dispatcher/pool.js') as typeof Undici.Pool;
/** buildConnector is undici's buildConnector (undici/lib/core/connect.js). */
export const buildConnector = require('undici/lib/core/connect.js') as typeof Undici.buildConnector;
export type Pool = Undici.Pool;
