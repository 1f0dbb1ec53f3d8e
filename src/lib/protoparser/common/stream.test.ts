import { describe, it, expect } from 'vitest';
import zlib from 'node:zlib';
import { randomBytes } from 'node:crypto';
import { compressSync } from 'snappy';
import { decodeBody, decodeSnappyBlock, limitBytes, readBody, readDecodedBody, RowBatcher, streamLines } from './stream.ts';
import { BodyTooLargeError, ParseError, UnsupportedEncodingError } from './parse-error.ts';
import { parse } from '../prometheus/parse.ts';
import type { Row } from './row.ts';

// chunks cuts a buffer into pieces of n bytes, as a network stream would deliver it.
function chunks(buf: Buffer, n: number): Buffer[] {
  const out: Buffer[] = [];
  for (let i = 0; i < buf.length; i += n) out.push(buf.subarray(i, i + n));
  return out;
}

async function collect(it: AsyncIterable<Buffer>): Promise<string> {
  const parts: Buffer[] = [];
  for await (const c of it) parts.push(c);
  return Buffer.concat(parts).toString();
}

async function errorOf(p: Promise<unknown>): Promise<unknown> {
  try {
    await p;
  } catch (e) {
    return e;
  }
  return undefined;
}

const text = 'up{job="a"} 1 1000\n'.repeat(50);

describe('decodeBody', () => {
  it('undoes every supported Content-Encoding', async () => {
    const f = async (encoding: string | undefined, body: Buffer): Promise<void> => {
      expect(await collect(decodeBody(chunks(body, 7), encoding))).toBe(text);
    };
    const raw = Buffer.from(text);
    await f(undefined, raw);
    await f('identity', raw);
    await f('gzip', zlib.gzipSync(raw));
    await f('x-gzip', zlib.gzipSync(raw));
    await f('GZIP', zlib.gzipSync(raw));
    await f('deflate', zlib.deflateSync(raw));
    await f('deflate', zlib.deflateRawSync(raw));
    await f('zstd', zlib.zstdCompressSync(raw));
    await f('gzip, zstd', zlib.zstdCompressSync(zlib.gzipSync(raw)));
    expect(await collect(decodeBody([], 'gzip'))).toBe('');
  });

  it('rejects unknown encodings before reading', () => {
    expect(() => decodeBody([], 'br')).toThrow(UnsupportedEncodingError);
    expect(() => decodeBody([], 'snappy')).toThrow('unsupported Content-Encoding "snappy"; supported: identity, gzip, x-gzip, deflate, zstd');
  });

  it('turns corrupt or truncated compressed data into a ParseError', async () => {
    const f = async (encoding: string, body: Buffer, want: RegExp): Promise<void> => {
      const err = await errorOf(collect(decodeBody(chunks(body, 5), encoding)));
      expect(err).toBeInstanceOf(ParseError);
      expect((err as Error).message).toMatch(want);
    };
    const gz = zlib.gzipSync(Buffer.from(text));
    await f('gzip', Buffer.from('not gzip at all'), /^cannot decode gzip body: /);
    await f('gzip', gz.subarray(0, gz.length - 10), /^cannot decode gzip body: unexpected end of file/);
    await f('zstd', Buffer.from('garbage!'), /^cannot decode zstd body: /);
    await f('deflate', Buffer.from([0x78, 0x9c, 1, 2, 3]), /^cannot decode deflate body: /);
  });

  it('passes errors of the source through unchanged', async () => {
    async function* failing(): AsyncIterable<Buffer> {
      yield zlib.gzipSync(Buffer.from(text)).subarray(0, 10);
      throw new Error('client aborted');
    }
    const err = await errorOf(collect(decodeBody(failing(), 'gzip')));
    expect((err as Error).message).toBe('client aborted');
  });
});

describe('limits', () => {
  it('stops reading past the limit', async () => {
    let pulled = 0;
    function* source(): Iterable<Buffer> {
      for (let i = 0; i < 100; i++) {
        pulled++;
        yield Buffer.alloc(10);
      }
    }
    const err = await errorOf(readBody(source(), 35));
    expect(err).toBeInstanceOf(BodyTooLargeError);
    expect((err as Error).message).toBe('request body exceeds the limit of 35 bytes');
    expect(pulled).toBe(4);
    expect((await readBody(source(), 1000)).length).toBe(1000);
  });

  it('limits both the sent and the decoded size of a whole body', async () => {
    const gz = zlib.gzipSync(Buffer.from(text));
    expect((await readDecodedBody([gz], 'gzip', 1 << 20, 1 << 20)).toString()).toBe(text);
    const f = async (maxBody: number, maxDecoded: number, want: string): Promise<void> => {
      const err = await errorOf(readDecodedBody([gz], 'gzip', maxBody, maxDecoded));
      expect(err).toBeInstanceOf(BodyTooLargeError);
      expect((err as Error).message).toBe(want);
    };
    await f(10, 1 << 20, 'request body exceeds the limit of 10 bytes');
    await f(1 << 20, 100, 'decompressed request body exceeds the limit of 100 bytes');
  });

  it('stops a decompression bomb early', async () => {
    const bomb = zlib.gzipSync(Buffer.alloc(64 * 1024 * 1024));
    const err = await errorOf(collect(limitBytes(decodeBody([bomb], 'gzip'), 1024 * 1024, 'decompressed request body')));
    expect(err).toBeInstanceOf(BodyTooLargeError);
    expect((err as BodyTooLargeError).limit).toBe(1024 * 1024);
  });
});

describe('decodeSnappyBlock', () => {
  it('decodes, checks the declared size and reports corruption', () => {
    const block = compressSync(Buffer.from(text));
    expect(decodeSnappyBlock(block, 1 << 20).toString()).toBe(text);
    expect(() => decodeSnappyBlock(block, 100)).toThrow(BodyTooLargeError);
    expect(() => decodeSnappyBlock(Buffer.from([0xff, 0xff, 0xff, 0xff, 0xff, 0xff]), 1 << 20)).toThrow('invalid snappy block header');
    expect(() => decodeSnappyBlock(Buffer.from([]), 1 << 20)).toThrow('truncated snappy block header');
    expect(() => decodeSnappyBlock(Buffer.from([10, 1, 2, 3]), 1 << 20)).toThrow('at byte 1: cannot decompress snappy block: copy offset 2 outside the 0 bytes decoded');
  });
});

describe('streamLines', () => {
  const parseBlock = (t: string, firstLine: number) => parse(t, { now: () => 5, firstLine });

  it('delivers rows in bounded batches and numbers lines across chunks', async () => {
    const body = Buffer.from('a 1\nb 2\nbad\nc 3\n' + 'x'.repeat(300) + ' 1\nd 4\ne 5\nf 6\ng 7');
    const f = async (chunkSize: number): Promise<void> => {
      const batches: string[][] = [];
      const sum = await streamLines(chunks(body, chunkSize), parseBlock, {
        maxLineLength: 100,
        batchSize: 3,
        onBatch: (rows) => {
          batches.push(rows.map((r) => r.labels[0]!.value));
        },
      });
      expect(batches).toEqual([['a', 'b', 'c'], ['d', 'e', 'f'], ['g']]);
      expect(sum.rows).toBe(7);
      expect(sum.lines).toBe(9);
      expect(sum.errors.count).toBe(2);
      expect(sum.errors.describe()).toBe('2 lines could not be parsed; first: line 3: missing value after "bad"');
    };
    for (const n of [1, 3, 7, 64, 1000]) await f(n);
  });

  it('reports a too long line with its line number', async () => {
    const sum = await streamLines([Buffer.from('a 1\n' + 'y'.repeat(50) + '\nb 2\n')], parseBlock, { maxLineLength: 10, onBatch: () => {} });
    expect(sum.errors.first?.message).toBe('line 2: line is longer than 10 bytes (50 bytes)');
    expect(sum.rows).toBe(2);
  });

  it('decompresses and limits the decoded size', async () => {
    const gz = zlib.gzipSync(Buffer.from(text));
    const rows: Row[] = [];
    const sum = await streamLines(chunks(gz, 9), parseBlock, { contentEncoding: 'gzip', onBatch: (r) => void rows.push(...r) });
    expect(sum.rows).toBe(50);
    expect(rows[49]?.timestamp).toBe(1000);
    const err = await errorOf(streamLines([gz], parseBlock, { contentEncoding: 'gzip', maxDecodedBytes: 100, onBatch: () => {} }));
    expect(err).toBeInstanceOf(BodyTooLargeError);
  });

  it('waits for each batch before parsing on', async () => {
    const order: string[] = [];
    await streamLines([Buffer.from('a 1\nb 2\n'), Buffer.from('c 3\n')], parseBlock, {
      batchSize: 1,
      onBatch: async (rows) => {
        order.push(`start ${rows[0]!.labels[0]!.value}`);
        await new Promise((r) => setTimeout(r, 1));
        order.push(`end ${rows[0]!.labels[0]!.value}`);
      },
    });
    expect(order).toEqual(['start a', 'end a', 'start b', 'end b', 'start c', 'end c']);
  });
});

describe('RowBatcher', () => {
  it('re-cuts rows into batches of at most size', async () => {
    const f = async (size: number, inputs: number[], want: number[]): Promise<void> => {
      const got: number[] = [];
      const b = new RowBatcher(size, (rows) => void got.push(rows.length));
      for (const n of inputs) await b.add(Array.from({ length: n }, () => ({ labels: [], timestamp: 0, value: 0 })));
      await b.flush();
      expect(got).toEqual(want);
      expect(b.total).toBe(inputs.reduce((a, x) => a + x, 0));
    };
    await f(3, [1, 1, 1, 1], [3, 1]);
    await f(3, [7], [3, 3, 1]);
    await f(3, [0, 3, 0], [3]);
    await f(1, [2], [1, 1]);
    await f(5, [], []);
  });
});

describe('decodeBody cleanup', () => {
  it('releases the source when the reader stops early', async () => {
    let released = false;
    async function* source(): AsyncIterable<Buffer> {
      try {
        const gz = zlib.gzipSync(randomBytes(1 << 20)); // incompressible: the reader cannot get ahead of the break
        for (let i = 0; i < gz.length; i += 100) yield gz.subarray(i, i + 100);
      } finally {
        released = true;
      }
    }
    for await (const chunk of decodeBody(source(), 'gzip')) {
      expect(chunk.length).toBeGreaterThan(0);
      break;
    }
    await new Promise((r) => setTimeout(r, 10));
    expect(released).toBe(true);
  });
});

describe('streamLines on a long-lived connection', () => {
  it('delivers each chunk at once with flushPerChunk', async () => {
    const delivered: string[] = [];
    let release: () => void = () => {};
    const gate = new Promise<void>((r) => (release = r));
    async function* socket(): AsyncIterable<Buffer> {
      yield Buffer.from('a 1\nb 2\n');
      await gate; // the sender pauses; its rows must not wait for it
      yield Buffer.from('c 3\n');
    }
    const done = streamLines(socket(), (t, firstLine) => parse(t, { now: () => 1, firstLine }), {
      flushPerChunk: true,
      onBatch: (rows) => void delivered.push(...rows.map((r) => r.labels[0]!.value)),
    });
    await new Promise((r) => setTimeout(r, 10));
    expect(delivered).toEqual(['a', 'b']);
    release();
    await done;
    expect(delivered).toEqual(['a', 'b', 'c']);
  });
});
