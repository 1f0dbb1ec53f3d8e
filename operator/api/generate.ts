// Writes crds/*.yaml (and the chart's copy) and the field reference of docs/operator.md from
// operator/api. Run: node operator/api/generate.ts
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { crdFiles } from './crd.ts';
import { withReference } from './docs.ts';

/** DOCS_FILE holds the generated field reference between markers. */
export const DOCS_FILE = 'docs/operator.md';

/** CRD_DIRS are the folders holding generated CRDs, relative to the repository root. */
export const CRD_DIRS = ['crds', 'charts/strata-operator/crds'] as const;

/** writeCrds replaces the generated CRD files under root; files of other names are removed. */
export function writeCrds(root: string): void {
  const files = crdFiles();
  for (const dir of CRD_DIRS) {
    const path = join(root, dir);
    mkdirSync(path, { recursive: true });
    for (const existing of readdirSync(path)) {
      if (existing.endsWith('.yaml') && !files.has(existing)) rmSync(join(path, existing));
    }
    for (const [name, text] of files) writeFileSync(join(path, name), text);
  }
}

/** writeDocs refreshes the generated field reference in docs/operator.md. */
export function writeDocs(root: string): void {
  const path = join(root, DOCS_FILE);
  writeFileSync(path, withReference(readFileSync(path, 'utf8')));
}

if (import.meta.main) {
  const root = join(import.meta.dirname, '..', '..');
  writeCrds(root);
  writeDocs(root);
}
