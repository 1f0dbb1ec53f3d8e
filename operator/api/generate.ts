// Writes crds/*.yaml (and the chart's copy) from operator/api. Run: node operator/api/generate.ts
import { mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { crdFiles } from './crd.ts';

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

if (import.meta.main) writeCrds(join(import.meta.dirname, '..', '..'));
