import { Readable } from 'node:stream';
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { meterStream } from './metered-stream.ts';
import { readAll } from './testing/remote-fs-contract.ts';
import { TokenBucket } from './throttle.ts';

describe('meterStream', () => {
  it('passes bytes through, counting them', async () => {
    const seen: number[] = [];
    const out = meterStream(Readable.from([Buffer.from('ab'), Buffer.from('cde')]), { expectedBytes: 5, what: 'x', onBytes: (n) => seen.push(n) });
    expect((await readAll(out)).toString()).toBe('abcde');
    expect(seen).toEqual([2, 3]);
  });

  it('fails on a size mismatch, naming the data', async () => {
    const f = async (chunks: string[], expected: number, want: RegExp) => {
      const out = meterStream(Readable.from(chunks.map((c) => Buffer.from(c))), { expectedBytes: expected, what: 'part "p"' });
      await expect(readAll(out)).rejects.toThrow(want);
    };
    await f(['abc'], 4, /cannot transfer part "p": got 3 bytes, expected 4/);
    await f(['abc', 'de'], 4, /more than the expected 4 bytes/);
  });

  it('propagates source errors', async () => {
    const src = Readable.from((async function* () {
      yield Buffer.from('a');
      throw new Error('disk error');
    })());
    await expect(readAll(meterStream(src, { expectedBytes: 5, what: 'x' }))).rejects.toThrow('disk error');
  });

  // Backends attach to the body only after an await (opening a connection, creating a
  // directory): an error raised before then must wait for them, not crash the process.
  it('holds an error raised before anyone reads it for the later consumer', async () => {
    const f = async (src: Readable, expected: number, want: RegExp) => {
      const out = meterStream(src, { expectedBytes: expected, what: 'part "p"' });
      await sleep(20);
      await expect(readAll(out)).rejects.toThrow(want);
    };
    const failing = Readable.from((async function* () {
      yield Buffer.from('a');
      throw new Error('disk error');
    })());
    await f(failing, 5, /disk error/);
    await f(Readable.from([Buffer.from('abcdef')]), 3, /more than the expected 3 bytes/);
    await f(Readable.from([Buffer.from('ab')]), 3, /got 2 bytes, expected 3/);
  });

  it('throttles through the bucket'
, async () => {
    let t = 0;
    const waits: number[] = [];
    const bucket = new TokenBucket({ bytesPerSecond: 2, burstBytes: 0, now: () => t, delay: async (ms) => { waits.push(ms); t += ms; } });
    const out = meterStream(Readable.from([Buffer.from('ab'), Buffer.from('cd')]), { expectedBytes: 4, what: 'x', bucket });
    expect((await readAll(out)).toString()).toBe('abcd');
    expect(waits).toEqual([1000, 1000]);
  });
});
