// A read request may carry its args in a form-encoded body (SPEC D: "parameters are sent
// form-encoded in the body or as query args"). Args a token forces must not be overridden or
// widened from there either, so the body is filtered on its way upstream: pieces whose name
// decodes to a forced name are dropped. The body is streamed, never buffered whole: only the name
// of the current piece is held, and a name longer than any spelling of a forced one is let through.
import { Transform, type TransformCallback } from 'node:stream';
import { decodeArgName } from '../../lib/httpproxy/index.ts';

/**
 * MAX_FORCED_NAME_BYTES bounds the bytes of a name that may still decode to a forced name: the
 * longest forced name ("extra_filters[]", 15 characters) fully percent-encoded is 45 bytes.
 */
const MAX_FORCED_NAME_BYTES = 64;

const AMP = 0x26;
const EQ = 0x3d;
const SEP = Buffer.from('&');

/**
 * FormArgFilter drops the pieces of an application/x-www-form-urlencoded stream whose decoded name
 * is in `names`, keeping the others in their original bytes and order, joined by "&" (empty pieces
 * are dropped). A name with a malformed percent escape fails the stream with a QueryError: the
 * gateway cannot tell what the backend would make of it.
 */
export class FormArgFilter extends Transform {
  readonly #names: ReadonlySet<string>;
  #state: 'name' | 'keep' | 'drop' = 'name';
  #name: Buffer[] = [];
  #nameBytes = 0;
  #kept = 0;

  constructor(names: ReadonlySet<string>) {
    super();
    this.#names = names;
  }

  override _transform(chunk: Buffer, _enc: BufferEncoding, done: TransformCallback): void {
    try {
      this.#scan(chunk);
      done();
    } catch (err) {
      done(err as Error);
    }
  }

  override _flush(done: TransformCallback): void {
    try {
      if (this.#state === 'name') this.#endName(false);
      done();
    } catch (err) {
      done(err as Error);
    }
  }

  #scan(chunk: Buffer): void {
    let i = 0;
    while (i < chunk.length) {
      if (this.#state === 'name') {
        let j = i;
        while (j < chunk.length && chunk[j] !== EQ && chunk[j] !== AMP) j++;
        this.#name.push(chunk.subarray(i, j));
        this.#nameBytes += j - i;
        if (j === chunk.length) {
          if (this.#nameBytes > MAX_FORCED_NAME_BYTES) this.#startPiece(true);
          return;
        }
        this.#endName(chunk[j] === EQ);
        i = j + 1;
        continue;
      }
      const amp = chunk.indexOf(AMP, i);
      const end = amp < 0 ? chunk.length : amp;
      if (this.#state === 'keep' && end > i) this.push(chunk.subarray(i, end));
      if (amp < 0) return;
      this.#state = 'name';
      i = amp + 1;
    }
  }

  // The name of the current piece ended at "=" (hasValue) or at "&" / the end of the body.
  #endName(hasValue: boolean): void {
    if (this.#nameBytes === 0 && !hasValue) {
      this.#name = [];
      return; // empty piece ("&&")
    }
    const raw = Buffer.concat(this.#name, this.#nameBytes).toString('latin1');
    const drop = this.#nameBytes <= MAX_FORCED_NAME_BYTES && this.#names.has(decodeArgName(raw));
    if (drop) {
      this.#name = [];
      this.#nameBytes = 0;
      this.#state = hasValue ? 'drop' : 'name';
      return;
    }
    this.#startPiece(false);
    if (hasValue) this.push(Buffer.from('='));
    this.#state = hasValue ? 'keep' : 'name';
  }

  // Emits the name held so far as the start of a kept piece; longName: the name goes on streaming.
  #startPiece(longName: boolean): void {
    if (this.#kept > 0) this.push(SEP);
    this.#kept++;
    for (const b of this.#name) if (b.length > 0) this.push(b);
    this.#name = [];
    this.#nameBytes = 0;
    if (longName) this.#state = 'keep';
  }
}
