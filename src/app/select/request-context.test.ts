import compress from '@fastify/compress';
import Fastify from 'fastify';
import { request } from 'node:http';
import { gunzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { LimitExceededError } from '../../lib/storageapi/index.ts';
import { ApiError } from './errors.ts';
import { freeWhenSent, toApiError } from './request-context.ts';

describe('toApiError', () => {
  it('names the flag of a limit once, with one dash, whichever way the engine spelled it', () => {
    const f = (err: unknown, want: { kind: string; status: number; message: string }) => {
      const e = toApiError(err);
      expect({ kind: e.kind, status: e.status, message: e.message }).toEqual(want);
    };
    f(new LimitExceededError('needs 100 points, raise -search.maxPointsPerTimeseries', '-search.maxPointsPerTimeseries', 50),
      { kind: 'limit', status: 422, message: 'needs 100 points, raise -search.maxPointsPerTimeseries' });
    f(new LimitExceededError('too many series', '-search.maxUniqueTimeseries', 5), { kind: 'limit', status: 422, message: 'too many series; see -search.maxUniqueTimeseries' });
    f(new LimitExceededError('too many series', 'search.maxSeries', 5), { kind: 'limit', status: 422, message: 'too many series; see -search.maxSeries' });
    f(new ApiError('bad_data', 'x'), { kind: 'bad_data', status: 400, message: 'x' });
    f(new Error('boom'), { kind: 'internal', status: 500, message: 'boom' });
  });
});

describe('freeWhenSent', () => {
  // The client gets every byte, plain or gzipped, and the memory is freed once the response is written.
  it('frees a sent body after the last byte went out', async () => {
    const app = Fastify();
    await app.register(compress, { global: true, threshold: 1024, encodings: ['gzip'] });
    const sent: Buffer[] = [];
    app.get('/body', async (_req, reply) => {
      const body = Buffer.allocUnsafeSlow(4 << 20).fill('x').subarray(0, 3 << 20);
      sent.push(body);
      freeWhenSent(reply, body);
      return reply.type('application/json').send(body);
    });
    const addr = await app.listen({ host: '127.0.0.1', port: 0 });
    try {
      // Raw bytes over node:http, so the gzip case sees the compressed stream as sent.
      const get = (encoding: string) => new Promise<{ body: Buffer; encoding: string | undefined }>((resolve, reject) => {
        request(`${addr}/body`, { headers: { 'accept-encoding': encoding } }, (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('end', () => resolve({ body: Buffer.concat(chunks), encoding: res.headers['content-encoding'] }));
        }).on('error', reject).end();
      });
      const f = async (encoding: string, want: string | undefined) => {
        const res = await get(encoding);
        expect(res.encoding).toBe(want);
        const got = want === 'gzip' ? gunzipSync(res.body) : res.body;
        expect(got.length).toBe(3 << 20);
        expect(got.every((c) => c === 120)).toBe(true);
        const memory = sent.at(-1)!.buffer as ArrayBuffer;
        for (let i = 0; i < 50 && !memory.detached; i++) await new Promise((r) => setTimeout(r, 10));
        expect(memory.detached).toBe(true);
      };
      await f('identity', undefined);
      await f('gzip', 'gzip');
    } finally {
      await app.close();
    }
  });
});
