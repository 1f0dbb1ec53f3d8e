// The RemoteFs contract suite: one set of behaviours every backend must show. It runs against
// the fs backend in its unit test and against S3 (fauxqs), GCS (our fake) and Azure (azurite)
// in test/backup/.

import { randomBytes } from 'node:crypto';
import { Readable } from 'node:stream';
import { afterEach, describe, expect, it } from 'vitest';
import { RemoteNotFoundError } from '../errors.ts';
import type { RemoteFs } from '../remote-fs.ts';

/** ContractSetup tells the suite how to get a backend. */
export interface ContractSetup {
  /** create returns a RemoteFs rooted at a fresh, empty location; the suite closes it. */
  readonly create: () => Promise<RemoteFs>;
  /** urlPrefix is what every created RemoteFs url starts with, as `s3://`. */
  readonly urlPrefix: string;
  /** bigFileSize is the size of the multi-chunk upload case; default 6 MiB + 1 byte. */
  readonly bigFileSize?: number;
}

/** readAll collects a stream into one Buffer. */
export async function readAll(stream: Readable): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const c of stream) chunks.push(Buffer.from(c as Uint8Array));
  return Buffer.concat(chunks);
}

/** bodyOf returns a stream yielding `data` in chunks of at most 64 KiB. */
export function bodyOf(data: Buffer): Readable {
  const chunks: Buffer[] = [];
  for (let i = 0; i < data.length; i += 65536) chunks.push(data.subarray(i, i + 65536));
  return Readable.from(chunks);
}

/** failingBody yields `first` and then fails with `err`. */
export function failingBody(first: Buffer, err: Error): Readable {
  return Readable.from((async function* () {
    yield first;
    throw err;
  })());
}

/** describeRemoteFsContract defines the contract tests for one backend. */
export function describeRemoteFsContract(name: string, setup: ContractSetup): void {
  describe(`RemoteFs contract: ${name}`, () => {
    let open: RemoteFs[] = [];
    const create = async (): Promise<RemoteFs> => {
      const r = await setup.create();
      open.push(r);
      return r;
    };
    afterEach(async () => {
      await Promise.all(open.map((r) => r.close()));
      open = [];
    });

    it('has a url of its scheme', async () => {
      expect((await create()).url.startsWith(setup.urlPrefix)).toBe(true);
    });

    it('lists nothing in an empty root', async () => {
      const r = await create();
      expect(await r.list('')).toEqual([]);
      expect(await r.list('latest')).toEqual([]);
    });

    it('uploads, lists sorted with sizes, and reads back', async () => {
      const r = await create();
      const f = async (path: string, data: Buffer) => {
        await r.upload(path, bodyOf(data), data.length);
        expect(await readAll(await r.read(path))).toEqual(data);
      };
      // nested paths, a ':' as in hourly names, an empty part
      await f('latest/data/small/part1/0000000000000003_0000000000000000_0000000000000003', Buffer.from('abc'));
      await f('hourly/2024-01-02:03/x/0000000000000000_0000000000000000_0000000000000000', Buffer.alloc(0));
      await f('latest/a', randomBytes(70_000));
      expect(await r.list('')).toEqual([
        { path: 'hourly/2024-01-02:03/x/0000000000000000_0000000000000000_0000000000000000', size: 0 },
        { path: 'latest/a', size: 70_000 },
        { path: 'latest/data/small/part1/0000000000000003_0000000000000000_0000000000000003', size: 3 },
      ]);
    });

    it('lists only under the given directory, not siblings sharing a prefix', async () => {
      const r = await create();
      for (const p of ['latest/x', 'latest/y/z', 'latest2/x', 'latestx', 'daily/2024-01-01/x']) {
        await r.writeFile(p, 'v');
      }
      expect((await r.list('latest')).map((f) => f.path)).toEqual(['latest/x', 'latest/y/z']);
      expect((await r.list('daily/2024-01-01')).map((f) => f.path)).toEqual(['daily/2024-01-01/x']);
    });

    it('uploads a multi-chunk body', async () => {
      const r = await create();
      const data = randomBytes(setup.bigFileSize ?? 6 * 1024 * 1024 + 1);
      await r.upload('big/file', bodyOf(data), data.length);
      expect(await r.list('big')).toEqual([{ path: 'big/file', size: data.length }]);
      expect((await readAll(await r.read('big/file'))).equals(data)).toBe(true);
    });

    it('replaces a file on upload', async () => {
      const r = await create();
      await r.upload('p', bodyOf(Buffer.from('old')), 3);
      await r.upload('p', bodyOf(Buffer.from('newer')), 5);
      expect((await readAll(await r.read('p'))).toString()).toBe('newer');
    });

    it('stores nothing when the body has the wrong size or fails', async () => {
      const r = await create();
      const f = async (path: string, body: Readable, size: number) => {
        await expect(r.upload(path, body, size)).rejects.toThrow();
        expect(await r.hasFile(path)).toBe(false);
        expect(await r.list('')).toEqual([]);
      };
      // a short body, a long body, a failing body
      await f('short', bodyOf(Buffer.from('abc')), 4);
      await f('long', bodyOf(Buffer.from('abcde')), 4);
      await f('broken', failingBody(Buffer.from('ab'), new Error('disk gone')), 4);
    });

    it('keeps the previous file when a replacing upload fails', async () => {
      const r = await create();
      await r.upload('p', bodyOf(Buffer.from('old')), 3);
      await expect(r.upload('p', failingBody(Buffer.from('ne'), new Error('cut')), 5)).rejects.toThrow();
      expect((await readAll(await r.read('p'))).toString()).toBe('old');
    });

    it('rejects an upload whose signal is aborted', async () => {
      const r = await create();
      const ac = new AbortController();
      ac.abort(new Error('stop'));
      await expect(r.upload('p', bodyOf(Buffer.from('abc')), 3, ac.signal)).rejects.toThrow();
      expect(await r.hasFile('p')).toBe(false);
    });

    it('copies server-side', async () => {
      const r = await create();
      const data = randomBytes(1000);
      await r.upload('latest/f/p', bodyOf(data), data.length);
      await r.copy('latest/f/p', 'daily/2024-01-01/f/p');
      expect((await readAll(await r.read('daily/2024-01-01/f/p'))).equals(data)).toBe(true);
      expect(await r.list('')).toEqual([
        { path: 'daily/2024-01-01/f/p', size: 1000 },
        { path: 'latest/f/p', size: 1000 },
      ]);
      // the copy is independent of its source
      await r.delete('latest/f/p');
      expect((await readAll(await r.read('daily/2024-01-01/f/p'))).equals(data)).toBe(true);
    });

    it('fails to copy a missing file with RemoteNotFoundError', async () => {
      const r = await create();
      await expect(r.copy('nope', 'x')).rejects.toBeInstanceOf(RemoteNotFoundError);
    });

    it('deletes, and ignores missing files', async () => {
      const r = await create();
      await r.writeFile('a/b/c', 'x');
      await r.writeFile('a/d', 'y');
      await r.delete('a/b/c');
      await r.delete('a/b/c');
      await r.delete('never/was');
      expect(await r.list('')).toEqual([{ path: 'a/d', size: 1 }]);
    });

    it('reports a missing file on read with RemoteNotFoundError', async () => {
      const r = await create();
      const err = await r.read('missing').then(readAll).then(() => undefined, (e: unknown) => e);
      expect(err).toBeInstanceOf(RemoteNotFoundError);
    });

    it('writes, reads and checks small files', async () => {
      const r = await create();
      const f = async (path: string, data: string | Buffer) => {
        await r.writeFile(path, data);
        expect(await r.hasFile(path)).toBe(true);
        expect((await r.readFile(path))?.equals(Buffer.from(data))).toBe(true);
      };
      await f('latest/backup_complete.ignore', '');
      await f('latest/backup_metadata.ignore', '{"created_at":"2024-01-01T00:00:00.000Z"}');
      await f('latest/backup_metadata.ignore', Buffer.from('replaced'));
      expect(await r.readFile('latest/none.ignore')).toBeUndefined();
      expect(await r.hasFile('latest/none.ignore')).toBe(false);
      expect(await r.hasFile('latest')).toBe(false); // a directory is not a file
    });

    it('rejects invalid paths', async () => {
      const r = await create();
      const f = async (path: string) => {
        await expect(r.writeFile(path, 'x')).rejects.toThrow();
      };
      await f('');
      await f('../escape');
      await f('a//b');
      await f('/abs');
      await f('a/./b');
    });
  });
}
