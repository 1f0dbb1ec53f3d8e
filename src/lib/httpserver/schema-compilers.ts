import type { FastifyServerOptions } from 'fastify';
import { createRequire } from 'node:module';

type CompilersFactory = NonNullable<NonNullable<FastifyServerOptions['schemaController']>['compilersFactory']>;
type Factory = (...args: unknown[]) => unknown;

/**
 * lazySchemaCompilers returns fastify's own schema compilers (@fastify/ajv-compiler and
 * @fastify/fast-json-stringify-compiler, resolved from fastify as it does), loaded the first time a
 * route with a schema needs one. fastify loads them when an app is created: ajv with its JTD build
 * and fast-json-stringify, ~120 of the ~1,000 modules a tsdb start loaded, while Strata's routes
 * declare no schemas. A route with a schema is compiled as before, except that fastify then treats
 * the compilers as custom ones: a headers schema keeps the case of its property names (fastify's
 * own compiler lowercases them, like the headers it checks).
 */
export function lazySchemaCompilers(): CompilersFactory {
  const fromFastify = (name: string) => createRequire(createRequire(import.meta.url).resolve('fastify'))(name) as () => Factory;
  let validator: Factory | undefined;
  let serializer: Factory | undefined;
  return {
    buildValidator: ((...args: unknown[]) => (validator ??= fromFastify('@fastify/ajv-compiler')())(...args)) as CompilersFactory['buildValidator'],
    buildSerializer: ((...args: unknown[]) => (serializer ??= fromFastify('@fastify/fast-json-stringify-compiler')())(...args)) as CompilersFactory['buildSerializer'],
  };
}
