// Imported by the binaries before the rest of their code (by path, not through index.ts): it must
// stay free of project imports.
import { registerHooks } from 'node:module';

/**
 * SOURCE_ROOT is the file: URL of the src/ directory this file lives in (src/lib/process/), with a
 * trailing slash.
 */
const SOURCE_ROOT = new URL('../../', import.meta.url).href;

/**
 * resolveSourceImport returns the URL a relative ".ts" import from one of the project's own
 * source files names, or undefined for every other import (packages, node: modules, other
 * extensions, files outside src/), which Node resolves as usual. root is SOURCE_ROOT in production.
 */
export function resolveSourceImport(specifier: string, parentURL: string | undefined, root = SOURCE_ROOT): string | undefined {
  if (parentURL === undefined || !parentURL.startsWith(root) || !parentURL.endsWith('.ts')) return undefined;
  if (!(specifier.startsWith('./') || specifier.startsWith('../')) || !specifier.endsWith('.ts')) return undefined;
  const url = new URL(specifier, parentURL).href;
  return url.startsWith(root) ? url : undefined;
}

/**
 * DEPENDENCY_SUBSTITUTES: requires a dependency makes when it loads whose module the servers need
 * later, rarely or only in part, by the dependency's file (its path from node_modules/) and the
 * specifier it requires, each answered with a stand-in module of this directory (deferred.ts).
 * fastify requires node:https and node:http2 for TLS and HTTP/2 servers, which load tls and
 * crypto (41 built-in modules), and semver's index for three functions (47 files): ~10% of a
 * tsdb start's CPU, on every start (issue 18 item 4). fast-resolve.test.ts checks that each
 * dependency file still makes these requires and reads only what its stand-in provides.
 */
export const DEPENDENCY_SUBSTITUTES: Readonly<Record<string, Readonly<Record<string, string>>>> = {
  'fastify/lib/server.js': { 'node:https': './deferred-https.ts', 'node:http2': './deferred-http2.ts' },
  'fastify/lib/plugin-utils.js': { semver: './fastify-semver.ts' },
};

/**
 * substituteDependencyImport returns the URL of the stand-in DEPENDENCY_SUBSTITUTES gives a
 * dependency file's require of specifier, or undefined (Node resolves it as usual).
 */
export function substituteDependencyImport(specifier: string, parentURL: string | undefined): string | undefined {
  const at = parentURL?.lastIndexOf('/node_modules/') ?? -1;
  if (at < 0) return undefined;
  const file = DEPENDENCY_SUBSTITUTES[parentURL!.slice(at + '/node_modules/'.length)]?.[specifier];
  return file === undefined ? undefined : new URL(file, import.meta.url).href;
}

let registered = false;

/**
 * resolveSourcesDirectly makes Node resolve the project's own relative ".ts" imports (from one
 * source file under src/ to another) by joining URLs, and everything else as usual. Node's own
 * resolution looks for the nearest package.json of every file (for its module type: "type":
 * "module" in the repository's), takes the real path of every component (fs.realpathSync) and
 * stats the file: about a tenth of the CPU of a tsdb start, which loads ~300 source files
 * (docs/DECISIONS.md, "Startup of the tsdb binaries"). Valid because src/ holds no symbolic links
 * and every file in it is an ES module of the "type": "module" package: a URL joined inside src/
 * is the URL Node would resolve. A missing file fails when it is loaded (ENOENT naming the path)
 * instead of at resolution (ERR_MODULE_NOT_FOUND). The requires of DEPENDENCY_SUBSTITUTES get
 * their stand-ins. Hooks are per thread: worker threads resolve as usual. Calling it again does
 * nothing.
 */
export function resolveSourcesDirectly(): void {
  if (registered) return;
  registered = true;
  registerHooks({
    resolve(specifier, context, nextResolve) {
      const url = resolveSourceImport(specifier, context.parentURL) ?? substituteDependencyImport(specifier, context.parentURL);
      return url === undefined ? nextResolve(specifier, context) : { url, format: 'module-typescript', shortCircuit: true };
    },
  });
}
