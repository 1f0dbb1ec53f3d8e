import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { repoRoot } from '../e2e/process-harness.ts';
import { findImports, listSourceFiles, type SourceImport } from './imports.ts';
import { STORAGE_FOLDER_EDGES, storageFolderOf, storageViolation } from './storage-layout.ts';

const S = 'src/lib/storage';
const all: SourceImport[] = listSourceFiles(repoRoot, [S]).flatMap((f) => findImports(repoRoot, f));

describe('storageViolation', () => {
  const f = (file: string, target: string, ok: boolean) =>
    expect(storageViolation({ file: `${S}/${file}`, specifier: '', target: `${S}/${target}` }), `${file} → ${target}`).toSatisfy((why) => (why === undefined) === ok);

  it('lets the root import any folder and a folder its own files and the folders below it', () => {
    f('storage.ts', 'wal/wal.ts', true);
    f('core.ts', 'part/part-format.ts', true);
    f('part/data-part.ts', 'part/part-format.ts', true);
    f('part/data-part.ts', 'encoding/values-decode.ts', true);
    f('background/tasks.ts', 'index/index-tasks.ts', true);
    f('testdata/helpers.ts', 'storage.ts', true);
    f('index/index-table.test.ts', 'background/runner.ts', true); // tests may use other folders
    f('index/index-table.test.ts', 'storage.ts', false); // but not the root
    expect(storageViolation({ file: `${S}/part/data-part.ts`, specifier: '', target: 'src/lib/bytes/index.ts' })).toBeUndefined();
  });

  it('rejects a folder importing the root, a folder above it, or a folder not in the table', () => {
    f('background/tasks.ts', 'partition.ts', false); // issue 16: tasks.ts imported 9 root files
    f('index/index-table.ts', 'background/runner.ts', false); // issue 16: index → background
    f('part/part-writer.ts', 'buffer/raw-buffer.ts', false);
    f('wal/wal.ts', 'index/keys.ts', false);
    f('newformat/x.ts', 'common/errors.ts', false);
    expect(storageFolderOf('src/lib/storagerpc/x.ts')).toBeUndefined();
  });
});

describe('src/lib/storage layout', () => {
  it('keeps imports one way: folders never import the root, and only along STORAGE_FOLDER_EDGES', () => {
    const bad = all.map((i) => ({ i, why: storageViolation(i) })).filter((x) => x.why !== undefined).map((x) => `${x.i.file}: import "${x.i.specifier}": ${x.why}`);
    expect(bad).toEqual([]);
  });

  it('has a row for every folder on disk (testdata aside) and none for a folder that is gone', () => {
    const dirs = readdirSync(join(repoRoot, S)).filter((n) => statSync(join(repoRoot, S, n)).isDirectory() && n !== 'testdata');
    expect(Object.keys(STORAGE_FOLDER_EDGES).sort()).toEqual(dirs.sort());
  });

  it('has no cycle between folders', () => {
    const visit = (m: string, path: string[]): void => {
      for (const next of STORAGE_FOLDER_EDGES[m] ?? []) {
        expect(path, `cycle ${[...path, next].join(' → ')}`).not.toContain(next);
        visit(next, [...path, next]);
      }
    };
    for (const m of Object.keys(STORAGE_FOLDER_EDGES)) visit(m, [m]);
  });
});
