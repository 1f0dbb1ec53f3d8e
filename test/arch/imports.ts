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

/**
 * layerOf names the architectural layer (module) of a repo path: `src/cmd`, `src/app/<component>`,
 * `src/lib/<module>`, `operator/<folder>`, or `operator` for the files directly in operator/.
 */
export function layerOf(path: string): string {
  const parts = path.split('/');
  if (parts[0] === 'src' && (parts[1] === 'app' || parts[1] === 'lib') && parts.length > 3) return `src/${parts[1]}/${parts[2]}`;
  if (parts[0] === 'src' && parts[1] === 'cmd') return 'src/cmd';
  if (parts[0] === 'operator' && parts.length > 2) return `operator/${parts[1]}`;
  return parts[0] ?? path;
}

const lib = (...m: string[]): string[] => m.map((x) => `src/lib/${x}`);
const op = (...m: string[]): string[] => m.map((x) => (x === '' ? 'operator' : `operator/${x}`));

/** APP_INFRA: the lib modules any app may use; process plumbing with no domain of its own. */
const APP_INFRA = lib('buildinfo', 'errors', 'flags', 'httpserver', 'logger', 'metrics', 'process', 'timer');

/**
 * ALLOWED_EDGES is the dependency table: each module (src/lib/<module>, src/app/<component>,
 * operator/<folder>, `operator` for operator/*.ts) and the other modules it may import. Every
 * module on disk has a row (a test checks it), so a new module or a new edge is a reviewed
 * change of this table, not an accident. src/cmd is wiring and may import any app and lib.
 * Edges marked FLAGGED are allowed because they exist, not because they are right.
 */
export const ALLOWED_EDGES: Readonly<Record<string, readonly string[]>> = {
  // --- src/lib: leaves first; a module lists only what it needs ---
  'src/lib/buildinfo': [],
  // The one byte reader/writer (LEB128 varints, little-endian fixed widths) of every binary format.
  'src/lib/bytes': lib('errors'),
  // Coded errors and the catalog's helper (docs/ERRORS.md): a leaf every module may use.
  'src/lib/errors': [],
  'src/lib/regexp': [],
  'src/lib/backup': lib('errors'),
  'src/lib/httpproxy': [],
  'src/lib/timer': [],
  'src/lib/flags': lib('buildinfo'),
  'src/lib/logger': lib('flags'),
  'src/lib/intern': lib('flags'),
  'src/lib/metrics': lib('buildinfo', 'flags', 'logger', 'timer'),
  'src/lib/memory': lib('flags', 'metrics'),
  'src/lib/httpserver': lib('flags', 'logger', 'metrics', 'regexp', 'timer'),
  'src/lib/process': lib('buildinfo', 'flags', 'httpserver', 'intern', 'logger', 'memory', 'metrics', 'timer'),
  // The storage contract: types, errors, matcher and sample-dedup semantics. Nothing of any implementation.
  'src/lib/storageapi': lib('errors', 'regexp'),
  'src/lib/promql': lib('regexp'),
  'src/lib/protoparser': lib('bytes', 'storageapi'),
  // Keyed parsing shared by the single node and the cluster's insert node: parse worker pool,
  // key mirrors, influx key dictionaries, recent metadata lines.
  'src/lib/keyedparse': lib('logger', 'metrics', 'protoparser', 'storageapi'),
  // The query engine sees storage only through the contract.
  'src/lib/query': lib('errors', 'promql', 'regexp', 'storageapi'),
  'src/lib/storage': lib('bytes', 'errors', 'storageapi'),
  // Query work on worker threads: the engine's rollup loop (query) over blocks as stored, decoded
  // with the engine's block decoder (storage/series-blocks.ts), the unit a storage node can run too.
  'src/lib/querypool': lib('errors', 'flags', 'memory', 'metrics', 'query', 'storage', 'storageapi'),
  // FLAGGED storagerpc → storage: for the KeyedRows type, which pulls engine internals into the
  // cluster's insert/select clients, and for series-blocks.ts, the select payload of part blocks as
  // stored, which the select node decodes with the engine's own block decoder (one decoder); the
  // byte codec and CorruptDataError are in lib/bytes.
  'src/lib/storagerpc': lib('bytes', 'httpserver', 'metrics', 'protoparser', 'storage', 'storageapi'),
  // What the cluster's insert and select nodes share about storage nodes seen through the contract:
  // rotation state, bounded calls, re-checks, addresses (the router and fan-out are in the apps).
  // cluster → process: startClusterNode, the shared start of the tsdb-insert and tsdb-select binaries.
  'src/lib/cluster': lib('metrics', 'process', 'storageapi', 'timer'),
  // Config files: loading and reloading on SIGHUP / -configCheckInterval.
  'src/lib/config': lib('logger', 'metrics'),
  // Metric metadata (HELP/TYPE/UNIT) kept from ingestion. FLAGGED metadata → storage: only for
  // writeFileAtomicAsync, a file utility that would sit better in a small fs module of its own.
  'src/lib/metadata': lib('logger', 'protoparser', 'storage', 'storageapi'),

  // --- src/app: APP_INFRA plus the domain modules each component works with ---
  'src/app/authproxy': [...APP_INFRA, ...lib('config', 'httpproxy', 'regexp')],
  'src/app/backupmanager': [...APP_INFRA, ...lib('backup')],
  // The JWT gateway checks extra_filters claims (promql) and proxies requests.
  'src/app/gateway': [...APP_INFRA, ...lib('config', 'httpproxy', 'promql')],
  // insert and select reach the storage through the contract only: in-process, or the cluster's
  // routing over storagerpc clients that src/cmd wires in.
  'src/app/insert': [...APP_INFRA, ...lib('cluster', 'keyedparse', 'protoparser', 'storageapi')],
  // select → httpproxy: the rules/alerts calls are forwarded to vmalert. select → bytes: JSON
  // answers are written as bytes with the one ByteWriter.
  'src/app/select': [...APP_INFRA, ...lib('bytes', 'cluster', 'httpproxy', 'metadata', 'promql', 'protoparser', 'query', 'regexp', 'storageapi')],
  'src/app/storage': [...APP_INFRA, ...lib('memory', 'storage', 'storagerpc')],

  // --- operator: cmd → controller → reconcile → factory → api; k8s and runtime underneath ---
  operator: op('api'),
  // FLAGGED api ↔ k8s cycle: api uses k8s/types.ts object shapes, k8s/resources.ts builds the
  // CUSTOM resource types from api/kinds.ts. Moving CUSTOM into api would break it.
  'operator/api': op('k8s'),
  'operator/k8s': op('api'),
  'operator/runtime': op('k8s'),
  'operator/factory': op('', 'api', 'k8s'),
  'operator/reconcile': op('api', 'factory', 'k8s', 'runtime'),
  'operator/controller': op('', 'api', 'factory', 'k8s', 'reconcile', 'runtime'),
  'operator/cmd': [...op('controller', 'k8s', 'runtime'), ...lib('buildinfo', 'flags', 'metrics', 'process')],
};

/** TEST_EDGES are further edges allowed only in test files (x.test.ts), each with its reason. */
export const TEST_EDGES: Readonly<Record<string, readonly string[]>> = {
  // MemorySearcher stands in for the storage behind the RPC server in the codec and server tests.
  'src/lib/storagerpc': lib('query'),
  // MemorySearcher stands in for the storage nodes behind the cluster router's tests.
  'src/app/insert': lib('query'),
  // The differential test calls every rollup function with the arguments its signature requires.
  'src/lib/querypool': lib('promql'),
  // rbac.test.ts holds the RBAC rules to what the manager watches and reconcile writes.
  operator: op('controller', 'k8s', 'reconcile'),
};

const isTestFile = (file: string): boolean => /\.test\.ts$/.test(file);

/**
 * edgeViolation explains why an import breaks ARCHITECTURE §3 or the ALLOWED_EDGES table, or
 * returns undefined when it is allowed: src/cmd → src/app/* → src/lib/*; operator/ → src/lib/*;
 * src/cmd/operator.ts (the operator's wiring) → operator/; no app imports another app; src/lib never imports src/app, src/cmd or operator/; and between
 * modules only the edges ALLOWED_EDGES (and, in tests, TEST_EDGES) lists.
 */
export function edgeViolation(imp: SourceImport): string | undefined {
  if (imp.target === undefined) return undefined;
  const from = layerOf(imp.file);
  const to = layerOf(imp.target);
  if (from === to) return undefined;
  const isLib = (l: string) => l.startsWith('src/lib/');
  const isApp = (l: string) => l.startsWith('src/app/');
  const isOperator = (l: string) => l === 'operator' || l.startsWith('operator/');
  if (isLib(from) && !isLib(to)) return `${from} may import only src/lib/*, not ${to}`;
  if (isApp(from) && !isLib(to)) return `${from} may import only its own folder and src/lib/*, not ${to}`;
  // src/cmd/operator.ts is the operator's binary: its wiring imports operator/.
  const operatorWiring = imp.file === 'src/cmd/operator.ts' && isOperator(to);
  if (from === 'src/cmd' && !isLib(to) && !isApp(to) && !operatorWiring) {
    return `src/cmd may import only src/app/* and src/lib/* (and src/cmd/operator.ts operator/), not ${to}`;
  }
  if (isOperator(from) && !isOperator(to) && !isLib(to)) return `operator/ may import only operator/ and src/lib/*, not ${to}`;
  if (from === 'src/cmd') return undefined;
  const allowed = ALLOWED_EDGES[from];
  if (allowed === undefined) return `${from} has no row in ALLOWED_EDGES (test/arch/imports.ts): add it with the modules it may import`;
  if (allowed.includes(to)) return undefined;
  if (isTestFile(imp.file) && TEST_EDGES[from]?.includes(to)) return undefined;
  return `${from} may not import ${to} (ALLOWED_EDGES in test/arch/imports.ts lists what it may import)`;
}

/** listModules names the modules on disk: src/lib/*, src/app/*, operator/* folders, and `operator`. */
export function listModules(root: string): string[] {
  const dirs = (d: string) => readdirSync(join(root, d)).filter((n) => !n.startsWith('.') && statSync(join(root, d, n)).isDirectory());
  return [...dirs('src/lib').map((n) => `src/lib/${n}`), ...dirs('src/app').map((n) => `src/app/${n}`), 'operator', ...dirs('operator').map((n) => `operator/${n}`)];
}
