import * as common from '../protoparser/common/index.ts';
import type { Label } from '../storageapi/index.ts';
import type { NewKeys } from './parse-protocol.ts';

/**
 * KeyMirror is the main thread's copy of one parse worker's series-key table: key numbers in the
 * worker's batches index it. It is filled from the NewKeys of batch messages, in message order,
 * so it always knows a key before a batch uses it. One per worker; it dies with the worker.
 */
export class KeyMirror {
  readonly table = new common.SeriesKeyTable();
  readonly #names = new Map<string, string>();
  /** bytes estimates the memory of the mirrored keys. */
  bytes = 0;

  /** add appends keys; throws when they do not continue the table (a protocol bug). */
  add(k: NewKeys): void {
    const t = this.table;
    if (k.from !== t.labels.length) throw new Error(`cannot mirror parse worker keys from ${k.from}: the mirror holds ${t.labels.length}`);
    for (let i = 0; i < k.rawKeys.length; i++) {
      const flat = k.labels[i]!;
      const labels: Label[] = new Array(flat.length / 2);
      for (let j = 0; j < flat.length; j += 2) labels[j / 2] = { name: this.#name(flat[j]!), value: flat[j + 1]! };
      const raw = k.rawKeys[i]!;
      t.labels.push(labels);
      t.rawKeys.push(raw);
      this.bytes += 164 + 2 * raw.length + flat.reduce((n, s) => n + 2 * s.length + 16, 0);
    }
  }

  // Label names repeat across series: keep one string per name.
  #name(n: string): string {
    let own = this.#names.get(n);
    if (own === undefined) {
      own = n;
      this.#names.set(n, n);
    }
    return own;
  }
}
