import { describe, expect, it } from 'vitest';
import { repoRoot } from '../e2e/process-harness.ts';
import {
  ALLOWED_EDGES, edgeViolation, findImports, layerOf, listModules, listSourceFiles, TEST_EDGES, type SourceImport,
} from './imports.ts';

const all: SourceImport[] = listSourceFiles(repoRoot, ['src', 'operator']).flatMap((f) => findImports(repoRoot, f));
const production = all.filter((i) => !/\.test\.ts$|\.test-helpers\.ts$|\.fuzz\.test\.ts$|\/testdata\//.test(i.file));

describe('edgeViolation', () => {
  const f = (file: string, target: string, ok: boolean) => expect(edgeViolation({ file, specifier: '', target }), `${file} → ${target}`).toSatisfy((why) => (why === undefined) === ok);

  it('allows the edges of ARCHITECTURE §3 and rejects the others', () => {
    f('src/cmd/tsdb.ts', 'src/app/insert/index.ts', true);
    f('src/cmd/tsdb.ts', 'src/lib/flags/index.ts', true);
    f('src/cmd/tsdb.ts', 'src/lib/storage/index.ts', true);
    f('src/app/insert/routes.ts', 'src/lib/storageapi/index.ts', true);
    f('src/app/insert/routes.ts', 'src/app/insert/errors.ts', true);
    f('src/app/insert/routes.ts', 'src/app/select/index.ts', false);
    f('src/app/insert/routes.ts', 'src/cmd/tsdb.ts', false);
    f('src/lib/storage/part.ts', 'src/app/storage/index.ts', false);
    f('src/lib/storage/part.ts', 'operator/api/types.ts', false);
    f('operator/cmd/operator.ts', 'src/lib/flags/index.ts', true);
    f('operator/controller/x.ts', 'src/app/authproxy/index.ts', false);
    f('src/cmd/operator.ts', 'operator/controller/manager.ts', true);
    f('src/cmd/tsdb.ts', 'operator/controller/manager.ts', false);
    f('operator/cmd/flags.ts', 'src/cmd/operator.ts', false);
    expect(layerOf('src/lib/protoparser/influx/parse.ts')).toBe('src/lib/protoparser');
    expect(layerOf('operator/reconcile/apply.ts')).toBe('operator/reconcile');
    expect(layerOf('operator/rbac.ts')).toBe('operator');
  });

  it('rejects the leaks issue 16 removed, should they come back', () => {
    // The storage contract importing its in-process implementation.
    f('src/lib/storageapi/inprocess.ts', 'src/lib/storage/index.ts', false);
    f('src/lib/storage/inprocess.ts', 'src/lib/storageapi/api.ts', true);
    // The storage engine and the auth proxy pulling in the PromQL parser for its regexps.
    f('src/lib/storage/index/matchers.ts', 'src/lib/promql/index.ts', false);
    f('src/app/authproxy/config-parse.ts', 'src/lib/promql/index.ts', false);
    f('src/lib/storageapi/matchers.ts', 'src/lib/regexp/index.ts', true);
    f('src/app/authproxy/config-parse.ts', 'src/lib/regexp/index.ts', true);
    // select reaching around the contract into the engine.
    f('src/app/select/request-context.ts', 'src/lib/storage/index.ts', false);
    f('src/app/select/request-context.ts', 'src/lib/storageapi/index.ts', true);
    // reconcile helpers depending on the controller that calls them.
    f('operator/reconcile/apply.ts', 'operator/controller/context.ts', false);
    f('operator/reconcile/apply.ts', 'operator/reconcile/context.ts', true);
    f('operator/controller/manager.ts', 'operator/reconcile/context.ts', true);
  });

  it('applies the table between lib modules and operator folders', () => {
    f('src/lib/storageapi/api.ts', 'src/lib/query/index.ts', false);
    f('src/lib/promql/parser.ts', 'src/lib/query/index.ts', false);
    f('src/lib/regexp/regexp.ts', 'src/lib/promql/index.ts', false);
    f('src/lib/query/engine.ts', 'src/lib/storage/index.ts', false);
    f('src/lib/query/engine.ts', 'src/lib/promql/index.ts', true);
    f('src/lib/flags/index.ts', 'src/lib/logger/index.ts', false);
    f('operator/factory/x.ts', 'operator/reconcile/apply.ts', false);
    f('operator/k8s/client.ts', 'operator/runtime/clock.ts', false);
    f('operator/controller/x.ts', 'src/lib/logger/index.ts', false);
    // A module without a row is an error that says where to add it.
    expect(edgeViolation({ file: 'src/lib/newmod/a.ts', specifier: '', target: 'src/lib/flags/index.ts' })).toMatch(/src\/lib\/newmod has no row in ALLOWED_EDGES/);
  });

  it('allows TEST_EDGES in test files only', () => {
    f('src/lib/storagerpc/rpc.test.ts', 'src/lib/query/memory-searcher.ts', true);
    f('src/lib/storagerpc/select-server.ts', 'src/lib/query/memory-searcher.ts', false);
  });
});

describe('ALLOWED_EDGES', () => {
  const modules = listModules(repoRoot);

  it('has a row for every module on disk and none for a module that is gone', () => {
    expect(modules.filter((m) => ALLOWED_EDGES[m] === undefined)).toEqual([]);
    expect(Object.keys(ALLOWED_EDGES).filter((m) => !modules.includes(m))).toEqual([]);
  });

  it('names only modules that exist (or are pending), never the module itself', () => {
    const bad = Object.entries({ ...ALLOWED_EDGES }).concat(Object.entries(TEST_EDGES))
      .flatMap(([from, tos]) => tos.filter((to) => to === from || !modules.includes(to)).map((to) => `${from} → ${to}`));
    expect(bad).toEqual([]);
  });

  it('has no cycle apart from the flagged api ↔ k8s one', () => {
    const known = new Set(['operator/api→operator/k8s', 'operator/k8s→operator/api']);
    const cycles: string[] = [];
    const visit = (node: string, path: string[]): void => {
      for (const next of ALLOWED_EDGES[node] ?? []) {
        if (known.has(`${node}→${next}`)) continue;
        const at = path.indexOf(next);
        if (at >= 0) cycles.push([...path.slice(at), next].join(' → '));
        else visit(next, [...path, next]);
      }
    };
    for (const m of Object.keys(ALLOWED_EDGES)) visit(m, [m]);
    expect([...new Set(cycles)]).toEqual([]);
  });
});

describe('repository imports', () => {
  it('follow the allowed dependency edges', () => {
    const bad = all.map((i) => ({ i, why: edgeViolation(i) })).filter((x) => x.why !== undefined).map((x) => `${x.i.file}: import "${x.i.specifier}": ${x.why}`);
    expect(bad).toEqual([]);
  });

  it('keep cloud SDKs and the Kubernetes client behind their own folders (house rule 11)', () => {
    const confined: ReadonlyArray<readonly [RegExp, string]> = [
      [/^@aws-sdk\//, 'src/lib/backup/s3/'],
      [/^@google-cloud\/storage/, 'src/lib/backup/gcs/'],
      [/^@azure\/storage-blob/, 'src/lib/backup/azure/'],
      [/^@kubernetes\/client-node/, 'operator/k8s/'],
    ];
    const bad = production.filter((i) => confined.some(([re, dir]) => re.test(i.specifier) && !i.file.startsWith(dir))).map((i) => `${i.file} imports ${i.specifier}`);
    expect(bad).toEqual([]);
  });

  it('keep pure modules free of flags (house rule 4)', () => {
    const pure = /^src\/lib\/(promql|query|regexp|storage|storageapi|protoparser)\//;
    const bad = production.filter((i) => pure.test(i.file) && i.target?.startsWith('src/lib/flags/')).map((i) => `${i.file} imports ${i.specifier}`);
    expect(bad).toEqual([]);
  });
});
