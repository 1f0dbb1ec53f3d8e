import { describe, expect, it } from 'vitest';
import { repoRoot } from '../e2e/process-harness.ts';
import { edgeViolation, findImports, layerOf, listSourceFiles, type SourceImport } from './imports.ts';

const all: SourceImport[] = listSourceFiles(repoRoot, ['src', 'operator']).flatMap((f) => findImports(repoRoot, f));
const production = all.filter((i) => !/\.test\.ts$|\.test-helpers\.ts$|\.fuzz\.test\.ts$|\/testdata\//.test(i.file));

describe('edgeViolation', () => {
  it('allows the edges of ARCHITECTURE §3 and rejects the others', () => {
    const f = (file: string, target: string, ok: boolean) => expect(edgeViolation({ file, specifier: '', target }) === undefined).toBe(ok);
    f('src/cmd/tsdb.ts', 'src/app/insert/index.ts', true);
    f('src/cmd/tsdb.ts', 'src/lib/flags/index.ts', true);
    f('src/app/insert/routes.ts', 'src/lib/storage/index.ts', true);
    f('src/app/insert/routes.ts', 'src/app/insert/errors.ts', true);
    f('src/app/insert/routes.ts', 'src/app/select/index.ts', false);
    f('src/app/insert/routes.ts', 'src/cmd/tsdb.ts', false);
    f('src/lib/storage/part.ts', 'src/app/storage/index.ts', false);
    f('src/lib/storage/part.ts', 'operator/api/types.ts', false);
    f('operator/controller/x.ts', 'src/lib/logger/index.ts', true);
    f('operator/controller/x.ts', 'src/app/authproxy/index.ts', false);
    f('src/cmd/operator.ts', 'operator/controller/manager.ts', true);
    f('src/cmd/tsdb.ts', 'operator/controller/manager.ts', false);
    f('operator/cmd/flags.ts', 'src/cmd/operator.ts', false);
    expect(layerOf('src/lib/protoparser/influx/parse.ts')).toBe('src/lib/protoparser');
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
    const pure = /^src\/lib\/(promql|query|storage|protoparser)\//;
    const bad = production.filter((i) => pure.test(i.file) && i.target?.startsWith('src/lib/flags/')).map((i) => `${i.file} imports ${i.specifier}`);
    expect(bad).toEqual([]);
  });
});
