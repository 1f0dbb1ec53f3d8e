// The layout rule inside src/lib/storage: each on-disk format has its folder (FORMAT.md has a
// section per folder) and imports flow one way — the files at the storage root (the engine that
// ties the formats together) import the folders, a folder never imports the root, and folders
// import each other only along STORAGE_FOLDER_EDGES, which has no cycle.

import type { SourceImport } from './imports.ts';

const STORAGE = 'src/lib/storage/';

/**
 * STORAGE_FOLDER_EDGES: each folder of src/lib/storage and the other folders it may import.
 * testdata/ (test support: it opens whole storages) is outside the rule, like test files of the
 * root; a folder's test files may also use other folders (a runner, another format's decoder) but
 * not the root.
 */
export const STORAGE_FOLDER_EDGES: Readonly<Record<string, readonly string[]>> = {
  // Helpers every format uses: errors, file utilities, logger, caches, the manifest file, merge policy.
  common: [],
  // The integer, timestamp and value stream encodings inside data blocks.
  encoding: ['common'],
  // Data parts: block headers, block writer and reader, part merge.
  part: ['common', 'encoding'],
  // The in-memory raw-sample buffer and its flush into data parts.
  buffer: ['common', 'part'],
  // The inverted index: items, index parts, the index table.
  index: ['common', 'encoding'],
  // The write-ahead log.
  wal: ['common'],
  // The worker thread that runs flushes and merges of all the formats.
  background: ['common', 'part', 'buffer', 'index'],
};

/** storageFolderOf names the folder of a repo path inside src/lib/storage, '' for the root, undefined outside storage. */
export function storageFolderOf(path: string): string | undefined {
  if (!path.startsWith(STORAGE)) return undefined;
  const rest = path.slice(STORAGE.length).split('/');
  return rest.length > 1 ? rest[0] : '';
}

/** storageViolation explains why an import inside src/lib/storage breaks the layout rule, or returns undefined. */
export function storageViolation(imp: SourceImport): string | undefined {
  if (imp.target === undefined) return undefined;
  const from = storageFolderOf(imp.file);
  const to = storageFolderOf(imp.target);
  if (from === undefined || to === undefined || from === '' || from === 'testdata' || from === to) return undefined;
  if (to === '') return `src/lib/storage/${from}/ may not import the storage root (${imp.target}): subfolders never import the root`;
  if (/\.test\.ts$/.test(imp.file)) return undefined;
  const allowed = STORAGE_FOLDER_EDGES[from];
  if (allowed === undefined) return `src/lib/storage/${from}/ has no row in STORAGE_FOLDER_EDGES (test/arch/storage-layout.ts)`;
  if (!allowed.includes(to)) return `src/lib/storage/${from}/ may not import ${to}/ (STORAGE_FOLDER_EDGES in test/arch/storage-layout.ts)`;
  return undefined;
}
