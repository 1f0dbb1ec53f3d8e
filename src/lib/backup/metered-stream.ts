import { pipeline, Transform, type Readable } from 'node:stream';
import type { TokenBucket } from './throttle.ts';

/** MeterOptions configures meterStream. */
export interface MeterOptions {
  /** expectedBytes is the exact number of bytes the source must yield. */
  readonly expectedBytes: number;
  /** what names the data in error messages, as `part "latest/x/…"`. */
  readonly what: string;
  /** bucket throttles the bytes (shared by all workers); absent = unlimited. */
  readonly bucket?: TokenBucket | undefined;
  /** onBytes is told about every chunk that passes. */
  readonly onBytes?: ((n: number) => void) | undefined;
  readonly signal?: AbortSignal | undefined;
}

/**
 * meterStream returns `src` re-emitted through a throttling, counting transform that fails with
 * a clear error when the source yields more or fewer bytes than expected (a source file changed
 * or a download was cut short). Errors of `src` propagate to the returned stream, and
 * destroying the returned stream destroys `src`.
 */
export function meterStream(src: Readable, opts: MeterOptions): Readable {
  let seen = 0;
  const meter = new Transform({
    transform(chunk: Buffer, _enc, cb) {
      seen += chunk.length;
      if (seen > opts.expectedBytes) {
        cb(new Error(`cannot transfer ${opts.what}: got more than the expected ${opts.expectedBytes} bytes`));
        return;
      }
      const pass = (): void => {
        opts.onBytes?.(chunk.length);
        cb(null, chunk);
      };
      if (!opts.bucket) {
        pass();
        return;
      }
      opts.bucket.take(chunk.length, opts.signal).then(pass, (err: unknown) => cb(err as Error));
    },
    flush(cb) {
      if (seen !== opts.expectedBytes) {
        cb(new Error(`cannot transfer ${opts.what}: got ${seen} bytes, expected ${opts.expectedBytes}`));
        return;
      }
      cb();
    },
  });
  // The callback only swallows the duplicate report: pipeline already destroyed `meter` with the error.
  pipeline(src, meter, () => {});
  return meter;
}
