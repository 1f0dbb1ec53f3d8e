// In-memory state of the GCS fake: buckets of objects with the metadata GCS reports.

import { createHash } from 'node:crypto';
import { crc32cBase64 } from './crc32c.ts';

/** StoredObject is one object version. */
export interface StoredObject {
  readonly name: string;
  readonly data: Buffer;
  readonly generation: number;
  readonly contentType: string;
  readonly created: string;
  readonly md5: string;
  readonly crc32c: string;
}

/** GcsStore holds buckets; object names map to their current version. */
export class GcsStore {
  readonly #buckets = new Map<string, Map<string, StoredObject>>();
  #generation = 1_700_000_000_000_000;

  /** createBucket adds an empty bucket (no-op when it exists). */
  createBucket(name: string): void {
    if (!this.#buckets.has(name)) this.#buckets.set(name, new Map());
  }

  /** bucket returns a bucket's objects, or undefined. */
  bucket(name: string): Map<string, StoredObject> | undefined {
    return this.#buckets.get(name);
  }

  /** put stores a new version of an object; the bucket must exist. */
  put(bucket: string, name: string, data: Buffer, contentType: string): StoredObject {
    const b = this.#buckets.get(bucket);
    if (!b) throw new Error(`no bucket ${bucket}`);
    const obj: StoredObject = {
      name,
      data,
      generation: this.#generation++,
      contentType,
      created: new Date().toISOString(),
      md5: createHash('md5').update(data).digest('base64'),
      crc32c: crc32cBase64(data),
    };
    b.set(name, obj);
    return obj;
  }
}

/** objectResource renders an object as the JSON API does. */
export function objectResource(bucket: string, o: StoredObject): Record<string, unknown> {
  return {
    kind: 'storage#object',
    id: `${bucket}/${o.name}/${o.generation}`,
    name: o.name,
    bucket,
    generation: String(o.generation),
    metageneration: '1',
    contentType: o.contentType,
    storageClass: 'STANDARD',
    size: String(o.data.length),
    md5Hash: o.md5,
    crc32c: o.crc32c,
    etag: `C${o.generation}`,
    timeCreated: o.created,
    updated: o.created,
  };
}
