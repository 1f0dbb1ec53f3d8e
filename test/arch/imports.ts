import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';

/** SourceImport is one import specifier found in a source file. */
export interface SourceImport {
  /** file is relative to the repo root, with forward slashes. */
  readonly file: string;
  readonly specifier: string;
  /** target is the imported file relative to the repo root, or undefined for packages and node: modules. */
  readonly target: string | undefined;
}

const IMPORT_RE = /(?:^|[\s;])(?:import|export)\s+(?:type\s+)?(?:[\w*{}\s,$]+\s+from\s+)?['"]([^'"]+)['"]|\bimport\(\s*['"]([^'"]+)['"]\s*\)/g;

/** listSourceFiles walks dirs under root and returns .ts files (not under node_modules). */
export function listSourceFiles(root: string, dirs: readonly string[]): string[] {
  const out: string[] = [];
  const walk = (dir: string) => {
    let entries: string[];
    try {
      entries = readdirSync(dir);
    } catch {
      return;
    }
    for (const name of entries) {
      if (name === 'node_modules' || name.startsWith('.')) continue;
      const p = join(dir, name);
      if (statSync(p).isDirectory()) walk(p);
      else if (p.endsWith('.ts')) out.push(p);
    }
  };
  for (const d of dirs) walk(join(root, d));
  return out;
}

/** stripComments removes // and /* *\/ comments so commented-out imports do not count. */
function stripComments(text: string): string {
  return text.replace(/\/\*[\s\S]*?\*\//g, '').replace(/(^|[^:'"`\\])\/\/.*$/gm, '$1');
}

/** findImports lists the import specifiers of one file. */
export function findImports(root: string, absFile: string): SourceImport[] {
  const text = stripComments(readFileSync(absFile, 'utf8'));
  const file = relative(root, absFile).split(sep).join('/');
  const out: SourceImport[] = [];
  for (const m of text.matchAll(IMPORT_RE)) {
    const specifier = m[1] ?? m[2]!;
    const target = specifier.startsWith('.') ? relative(root, resolve(dirname(absFile), specifier)).split(sep).join('/') : undefined;
    out.push({ file, specifier, target });
  }
  return out;
}

/** layerOf names the architectural layer of a repo path. */
export function layerOf(path: string): string {
  const parts = path.split('/');
  if (parts[0] === 'src' && (parts[1] === 'app' || parts[1] === 'lib') && parts.length > 3) return `src/${parts[1]}/${parts[2]}`;
  if (parts[0] === 'src' && parts[1] === 'cmd') return 'src/cmd';
  return parts[0] ?? path;
}

/**
 * edgeViolation explains why an import breaks ARCHITECTURE §3, or returns undefined when it is allowed:
 * src/cmd → src/app/* → src/lib/*; operator/ → src/lib/*; src/cmd/operator.ts (the operator's
 * wiring) → operator/; no app imports another app; src/lib never imports src/app, src/cmd or operator/.
 */
export function edgeViolation(imp: SourceImport): string | undefined {
  if (imp.target === undefined) return undefined;
  const from = layerOf(imp.file);
  const to = layerOf(imp.target);
  if (from === to) return undefined;
  const isLib = (l: string) => l.startsWith('src/lib/');
  const isApp = (l: string) => l.startsWith('src/app/');
  if (isLib(from) && !isLib(to)) return `${from} may import only src/lib/*, not ${to}`;
  if (isApp(from) && !isLib(to)) return `${from} may import only its own folder and src/lib/*, not ${to}`;
  if (from === 'src/cmd' && !isLib(to) && !isApp(to) && !(to === 'operator' && imp.file === 'src/cmd/operator.ts')) {
    return `src/cmd may import only src/app/* and src/lib/* (and src/cmd/operator.ts operator/), not ${to}`;
  }
  if (from === 'operator' && !isLib(to)) return `operator/ may import only operator/ and src/lib/*, not ${to}`;
  return undefined;
}
