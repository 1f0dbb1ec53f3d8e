import { spawnSync } from 'node:child_process';
import { Readable } from 'node:stream';
import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';
import './compress-plugin.ts';

describe('@fastify/compress payload checks', () => {
  it('still recognise a fetch Response and a web stream, and nothing else', () => {
    const utils = createRequire(import.meta.url)('@fastify/compress/lib/utils.js') as Record<string, (v: unknown) => boolean>;
    expect(utils.isFetchResponse!(new Response('x'))).toBe(true);
    expect(utils.isWebReadableStream!(new ReadableStream())).toBe(true);
    for (const v of ['text', Buffer.from('x'), Readable.from(['x']), null, undefined, {}, { [Symbol.toStringTag]: 'Response' }]) {
      expect(utils.isFetchResponse!(v)).toBe(false);
      expect(utils.isWebReadableStream!(v)).toBe(false);
    }
  });

  it('load neither undici nor the web streams when answering, compressed or not', () => {
    // A fresh process, asking with node:http (fetch would load undici itself).
    const script = `
      const { startTestServer } = await import(${JSON.stringify(new URL('./server.test-helpers.ts', import.meta.url).href)});
      const s = await startTestServer();
      const { get } = process.getBuiltinModule('node:http');
      const ask = (path, headers) => new Promise((resolve, reject) => get(s.base + path, { headers }, (res) => {
        const chunks = [];
        res.on('data', (c) => chunks.push(c));
        res.on('end', () => resolve({ encoding: res.headers['content-encoding'] ?? '', bytes: Buffer.concat(chunks).length }));
      }).on('error', reject));
      const answers = [await ask('/echo', {}), await ask('/big', { 'accept-encoding': 'gzip' }), await ask('/echo', { 'accept-encoding': 'gzip' })];
      await s.stop();
      const loaded = process.moduleLoadList.filter((m) => /undici|webstreams\\/readablestream/.test(m));
      console.log(JSON.stringify({ answers, loaded }));`;
    const r = spawnSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8' });
    expect(r.status, r.stderr).toBe(0);
    const out = JSON.parse(r.stdout.trim().split('\n').at(-1)!) as { answers: Array<{ encoding: string; bytes: number }>; loaded: string[] };
    expect(out.answers[0]!.encoding).toBe('');
    expect(out.answers[1]!.encoding).toBe('gzip');
    expect(out.answers[1]!.bytes).toBeLessThan(10_000);
    expect(out.loaded).toEqual([]);
  }, 30_000);
});
