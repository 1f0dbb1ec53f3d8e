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
 * instead of at resolution (ERR_MODULE_NOT_FOUND). Hooks are per thread: worker threads resolve
 * as usual. Calling it again does nothing.
 */
export function resolveSourcesDirectly(): void {
  if (registered) return;
  registered = true;
  registerHooks({
    resolve(specifier, context, nextResolve) {
      const url = resolveSourceImport(specifier, context.parentURL);
      return url === undefined ? nextResolve(specifier, context) : { url, format: 'module-typescript', shortCircuit: true };
    },
  });
}
