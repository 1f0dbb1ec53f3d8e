import { join } from 'node:path';
import { Readable } from 'node:stream';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { FsRemote } from '../fs/fs-remote.ts';
import type { RemoteFs } from '../remote-fs.ts';
import { FaultyRemote } from './faulty-remote.ts';
import { readAll } from './remote-fs-contract.ts';
import { tempDir, type TempDir } from './tree.ts';

let tmp: TempDir;
let fsRemote: FsRemote;
beforeEach(async () => {
  tmp = await tempDir('faulty');
  fsRemote = new FsRemote({ root: join(tmp.path, 'dst'), fsync: false });
});
afterEach(() => tmp.cleanup());

// lateConsumer delegates to `inner` but starts consuming an upload body only after `ms`, as a
// real backend does while it opens a connection: a fault must not fire before anyone listens.
function lateConsumer(inner: RemoteFs, ms: number): RemoteFs {
  return new Proxy(inner, {
    get(target, prop, receiver) {
      if (prop === 'upload') {
        return async (path: string, body: Readable, size: number, signal?: AbortSignal) => {
          await sleep(ms);
          return target.upload(path, body, size, signal);
        };
      }
      const v = Reflect.get(target, prop, receiver) as unknown;
      return typeof v === 'function' ? (v as (...a: unknown[]) => unknown).bind(target) : v;
    },
  });
}

const midStream = (op: string) => (c: { op: string }) => (c.op === op ? { error: new Error('connection reset'), midStream: true } : undefined);

describe('FaultyRemote mid-stream faults', () => {
  it('fail the upload through its consumer, never as an unhandled stream error', async () => {
    const f = async (chunks: Buffer[]) => {
      const faulty = new FaultyRemote(lateConsumer(fsRemote, 30), midStream('upload'));
      const size = chunks.reduce((n, c) => n + c.length, 0);
      await expect(faulty.upload('a/b', Readable.from(chunks), size)).rejects.toThrow(/connection reset/);
      expect(await fsRemote.list('')).toEqual([]);
    };
    // one chunk: the fault fires at the end of the body
    await f([Buffer.from('x'.repeat(10))]);
    // several chunks: the fault fires at the second one
    await f([Buffer.from('a'), Buffer.from('b'), Buffer.from('c')]);
  });

  it('destroy the source when the backend gives up before reading', async () => {
    const givesUp = new Proxy(fsRemote, {
      get(target, prop) {
        if (prop === 'upload') {
          return async (_path: string, body: Readable) => {
            body.destroy();
            throw new Error('no connection');
          };
        }
        return Reflect.get(target, prop) as unknown;
      },
    });
    const faulty = new FaultyRemote(givesUp, midStream('upload'));
    const src = Readable.from([Buffer.from('abc')]);
    await expect(faulty.upload('a', src, 3)).rejects.toThrow('no connection');
    await sleep(10);
    expect(src.destroyed).toBe(true);
  });

  it('fail a read stream after its first chunk', async () => {
    await fsRemote.writeFile('f', 'hello');
    const faulty = new FaultyRemote(fsRemote, midStream('read'));
    const stream = await faulty.read('f');
    await sleep(30); // nobody reads yet: nothing may be raised
    await expect(readAll(stream)).rejects.toThrow(/connection reset/);
  });
});
