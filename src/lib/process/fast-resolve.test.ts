import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { resolveSourceImport } from './fast-resolve.ts';

const root = 'file:///app/src/';

describe('resolveSourceImport', () => {
  it('joins relative .ts imports between source files', () => {
    expect(resolveSourceImport('./x.ts', 'file:///app/src/lib/a/b.ts', root)).toBe('file:///app/src/lib/a/x.ts');
    expect(resolveSourceImport('../app/insert/index.ts', 'file:///app/src/cmd/tsdb.ts', root)).toBe('file:///app/src/app/insert/index.ts');
  });

  it('leaves every other import to Node', () => {
    const parent = 'file:///app/src/lib/a/b.ts';
    for (const spec of ['fastify', 'node:http', './x.js', './x.json', './x', './x.ts?v=1', '/app/src/x.ts', 'file:///app/src/x.ts', '../../../node_modules/p/i.ts', '../../../bench/x.ts']) {
      expect(resolveSourceImport(spec, parent, root), spec).toBeUndefined();
    }
    expect(resolveSourceImport('./x.ts', undefined, root)).toBeUndefined();
    expect(resolveSourceImport('./x.ts', 'file:///app/node_modules/p/i.ts', root)).toBeUndefined();
    expect(resolveSourceImport('./x.ts', 'file:///app/src/lib/a/b.js', root)).toBeUndefined();
    expect(resolveSourceImport('./x.ts', 'file:///app/bench/b.ts', root)).toBeUndefined();
    expect(resolveSourceImport('../../app/insert/index.ts', 'file:///app/src/cmd/tsdb.ts', root)).toBeUndefined();
  });

  it('resolves in the repository to the files Node resolves', async () => {
    // Its own root by default: this file's directory, and an import from it to a sibling module.
    const url = resolveSourceImport('./reexec.ts', import.meta.url);
    expect(url).toBe(new URL('./reexec.ts', import.meta.url).href);
    expect(existsSync(fileURLToPath(url!))).toBe(true);
    expect(resolveSourceImport('../../cmd/tsdb.ts', import.meta.url)).toBe(import.meta.resolve('../../cmd/tsdb.ts'));
  });
});
