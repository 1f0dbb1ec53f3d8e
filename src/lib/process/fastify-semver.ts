// semver for fastify's plugin-utils.js (fast-resolve.ts): the three functions it calls to check a
// plugin's declared fastify version, from their own files, instead of semver's index, which loads
// all of its 47 files (~20–40 ms of a start's CPU). Any other member loads the index, so the
// stand-in answers as semver does whatever plugin-utils reads.
import { createRequire } from 'node:module';
import { deferredModule } from './deferred.ts';

// Resolved from fastify's directory: the semver fastify itself would load.
const require = createRequire(import.meta.resolve('fastify'));
const full = deferredModule(() => require('semver') as object) as Record<PropertyKey, unknown>;

/** FASTIFY_SEMVER_FUNCTIONS are the members of semver fastify's plugin-utils.js calls. */
export const FASTIFY_SEMVER_FUNCTIONS = ['satisfies', 'gt', 'coerce'] as const;

const few: Record<PropertyKey, unknown> = Object.fromEntries(FASTIFY_SEMVER_FUNCTIONS.map((f) => [f, require(`semver/functions/${f}`)]));
const semver = new Proxy(few, {
  get: (t, key) => (Object.hasOwn(t, key) ? t[key] : full[key]),
  has: (t, key) => Object.hasOwn(t, key) || key in full,
});
export { semver as 'module.exports' };
