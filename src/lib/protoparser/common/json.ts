import { ParseError } from './parse-error.ts';

/**
 * parseJsonDocument parses a whole JSON request body. A syntax error becomes a ParseError whose
 * line is taken from the engine's message when it names one.
 */
export function parseJsonDocument(body: string | Uint8Array): unknown {
  const text = typeof body === 'string' ? body : Buffer.from(body.buffer, body.byteOffset, body.byteLength).toString('utf8');
  try {
    return JSON.parse(text);
  } catch (err) {
    const msg = (err as Error).message;
    const m = /\(line (\d+) column \d+\)/.exec(msg);
    throw new ParseError(`cannot parse JSON: ${msg}`, m ? { line: Number(m[1]) } : {}, { cause: err });
  }
}

/** describeJson names a JSON value's type for error messages. */
export function jsonType(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'array';
  return typeof v;
}
