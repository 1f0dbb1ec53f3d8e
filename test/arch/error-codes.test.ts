// The error catalog (docs/ERRORS.md) and the codes the sources define with defineErrors are the
// same set, with the same statuses, and no code is defined twice.

import { readFileSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { definedCodes } from '../../src/lib/errors/index.ts';
import { listSourceFiles } from './imports.ts';

const root = join(import.meta.dirname, '..', '..');

/** catalogFiles are the source files that declare codes (every call of defineErrors outside lib/errors). */
function catalogFiles(): string[] {
  return listSourceFiles(root, ['src', 'operator'])
    .filter((f) => !f.endsWith('.test.ts') && !relative(root, f).split(sep).join('/').startsWith('src/lib/errors/'))
    .filter((f) => /\bdefineErrors\(/.test(readFileSync(f, 'utf8')));
}

/** documented reads the catalog's table rows: code → status (undefined for `—`). */
function documented(): Map<string, number | undefined> {
  const out = new Map<string, number | undefined>();
  for (const m of readFileSync(join(root, 'docs', 'ERRORS.md'), 'utf8').matchAll(/^\| `(ERR_[A-Z0-9_]+)` \| (\d+|—) \|/gm)) {
    expect(out.has(m[1]!), `${m[1]} is listed twice in docs/ERRORS.md`).toBe(false);
    out.set(m[1]!, m[2] === '—' ? undefined : Number(m[2]));
  }
  return out;
}

describe('error catalog', () => {
  it('every defined code is unique and documented with its status, and every documented code is defined', async () => {
    const files = catalogFiles();
    expect(files.length).toBeGreaterThanOrEqual(9);
    const statuses = new Map<string, number | undefined>();
    for (const f of files) {
      // Importing a catalog defines its codes; a code defined twice throws here.
      const mod = (await import(pathToFileURL(f).href)) as Record<string, unknown>;
      const catalog = mod.ERRORS as Record<string, { code: string; status?: number }> | undefined;
      for (const e of Object.values(catalog ?? {})) statuses.set(e.code, e.status);
    }
    const codes = definedCodes();
    expect(new Set(codes).size).toBe(codes.length);
    const docs = documented();
    expect([...codes].sort()).toEqual([...docs.keys()].sort());
    // Exported catalogs (the apps') must state the status the file documents.
    for (const [code, status] of statuses) expect({ code, status: docs.get(code) }).toEqual({ code, status });
    for (const code of codes) if (!statuses.has(code)) expect({ code, status: docs.get(code) }).toEqual({ code, status: undefined });
  });
});
