import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { DEPENDENCY_SUBSTITUTES, resolveSourceImport, substituteDependencyImport } from './fast-resolve.ts';
import { FASTIFY_SEMVER_FUNCTIONS } from './fastify-semver.ts';

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

describe('substituteDependencyImport', () => {
  const server = 'file:///app/node_modules/fastify/lib/server.js';

  it('gives the listed requires of the listed dependency files their stand-ins', () => {
    expect(substituteDependencyImport('node:https', server)).toBe(new URL('./deferred-https.ts', import.meta.url).href);
    expect(substituteDependencyImport('node:http2', server)).toBe(new URL('./deferred-http2.ts', import.meta.url).href);
    expect(substituteDependencyImport('semver', 'file:///x/node_modules/a/node_modules/fastify/lib/plugin-utils.js')).toBe(new URL('./fastify-semver.ts', import.meta.url).href);
  });

  it('leaves every other import to Node', () => {
    expect(substituteDependencyImport('node:http', server)).toBeUndefined();
    expect(substituteDependencyImport('https', server)).toBeUndefined();
    expect(substituteDependencyImport('node:https', 'file:///app/node_modules/fastify/lib/route.js')).toBeUndefined();
    expect(substituteDependencyImport('node:https', 'file:///app/node_modules/other/fastify/lib/server.js')).toBeUndefined();
    expect(substituteDependencyImport('node:https', 'file:///app/src/lib/fastify/lib/server.js')).toBeUndefined();
    expect(substituteDependencyImport('semver', undefined)).toBeUndefined();
  });

  // A release of a dependency that reads more of a substituted module, or requires it elsewhere,
  // must fail here rather than load it on the start path or read what a stand-in lacks.
  const require = createRequire(import.meta.resolve('fastify'));
  const source = (file: string) => readFileSync(require.resolve(file.replace(/^fastify\//, './')), 'utf8');
  const standIn = async (file: string) => (await import(new URL(file, import.meta.url).href) as Record<string, unknown>)['module.exports'] as Record<string, unknown>;

  it('substitutes requires the dependency files still make, with stand-ins that answer as the modules', async () => {
    for (const [file, subs] of Object.entries(DEPENDENCY_SUBSTITUTES)) {
      const text = source(file);
      for (const [specifier, standInFile] of Object.entries(subs)) {
        const binding = new RegExp(`const (\\w+) = require\\('${specifier}'\\)`).exec(text);
        expect(binding, `${file} requires ${specifier}`).not.toBeNull();
        const members = new Set([...text.matchAll(new RegExp(`\\b${binding![1]}\\.(\\w+)`, 'g'))].map((m) => m[1]!));
        expect(members.size, `${file} reads members of ${specifier}`).toBeGreaterThan(0);
        const real = require(specifier) as Record<string, unknown>;
        const m = await standIn(standInFile);
        for (const member of members) expect(m[member], `${specifier}.${member}`).toBe(real[member]);
        if (specifier === 'semver') expect([...members].sort()).toEqual([...FASTIFY_SEMVER_FUNCTIONS].sort());
      }
    }
  });

  it('keeps tls, crypto and semver\'s index off a server start', () => {
    const script = `
      const { resolveSourcesDirectly } = await import(${JSON.stringify(new URL('./fast-resolve.ts', import.meta.url).href)});
      resolveSourcesDirectly();
      const { startTestServer } = await import(${JSON.stringify(new URL('../httpserver/server.test-helpers.ts', import.meta.url).href)});
      const s = await startTestServer();
      const { get } = process.getBuiltinModule('node:http');
      await new Promise((resolve, reject) => get(s.base + '/echo', (res) => res.resume().on('end', resolve)).on('error', reject));
      await s.stop();
      const { createRequire } = process.getBuiltinModule('node:module');
      const files = Object.keys(createRequire(process.cwd() + '/').cache);
      const builtins = process.moduleLoadList.filter((m) => /^NativeModule (tls|crypto|https|http2)$/.test(m));
      console.log(JSON.stringify({ builtins, semverIndex: files.some((f) => f.endsWith('/semver/index.js')), semver: files.some((f) => f.includes('/semver/')) }));`;
    const r = spawnSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8' });
    expect(r.status, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout.trim().split('\n').at(-1)!)).toEqual({ builtins: [], semverIndex: false, semver: true });
  }, 30_000);
});
