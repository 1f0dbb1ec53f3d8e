// A backed-up file is stored as one or more parts (DECISIONS.md "Backup manager"):
//   <backup name>/<file path>/<file size>_<offset>_<part size>
// with each number as 16 upper-case hex digits. Because source files are immutable, a part is
// identified by its name alone: an object with the same name is the same bytes.

import { ParseError } from './errors.ts';

/** DEFAULT_PART_SIZE is the largest part, 1 GiB. */
export const DEFAULT_PART_SIZE = 1024 * 1024 * 1024;

/** Part is a byte range of one file. All numbers are byte counts (safe integers). */
export interface Part {
  /** filePath is the file's path relative to the backup root ('/'-separated). */
  readonly filePath: string;
  /** fileSize is the size of the whole file. */
  readonly fileSize: number;
  /** offset is where this part starts in the file. */
  readonly offset: number;
  /** size is the part's length; 0 only for the single part of an empty file. */
  readonly size: number;
}

const PART_NAME_RE = /^([0-9A-Fa-f]{16})_([0-9A-Fa-f]{16})_([0-9A-Fa-f]{16})$/;

/** formatPartName returns `<fileSize>_<offset>_<size>` in 16-digit upper-case hex. */
export function formatPartName(p: Pick<Part, 'fileSize' | 'offset' | 'size'>): string {
  return `${hex16(p.fileSize)}_${hex16(p.offset)}_${hex16(p.size)}`;
}

/** partKey returns the part's path relative to the backup root: `<filePath>/<part name>`. */
export function partKey(p: Part): string {
  return `${p.filePath}/${formatPartName(p)}`;
}

/**
 * parsePartKey parses `<filePath>/<part name>` (relative to the backup root). It throws
 * ParseError when the last segment is not a part name, when the numbers exceed 2^53, or when
 * the part does not fit in its file.
 */
export function parsePartKey(key: string): Part {
  const slash = key.lastIndexOf('/');
  if (slash <= 0) throw new ParseError(`cannot parse part "${key}": expected <file path>/<size>_<offset>_<partsize>`);
  const m = PART_NAME_RE.exec(key.slice(slash + 1));
  if (!m) throw new ParseError(`cannot parse part "${key}": the name is not <size>_<offset>_<partsize> in 16-digit hex`);
  const fileSize = parseHex(key, m[1] ?? '');
  const offset = parseHex(key, m[2] ?? '');
  const size = parseHex(key, m[3] ?? '');
  if (offset + size > fileSize) {
    throw new ParseError(`cannot parse part "${key}": offset ${offset} + size ${size} exceeds the file size ${fileSize}`);
  }
  if (size === 0 && fileSize !== 0) {
    throw new ParseError(`cannot parse part "${key}": an empty part is only valid for an empty file`);
  }
  return { filePath: key.slice(0, slash), fileSize, offset, size };
}

/**
 * splitFile returns the parts of a file of `fileSize` bytes, each at most `partSize` bytes
 * (partSize ≥ 1). An empty file has one part of size 0 so that it is backed up too.
 */
export function splitFile(filePath: string, fileSize: number, partSize: number): Part[] {
  if (!Number.isSafeInteger(partSize) || partSize < 1) throw new RangeError(`part size must be a positive integer, got ${partSize}`);
  if (fileSize === 0) return [{ filePath, fileSize, offset: 0, size: 0 }];
  const parts: Part[] = [];
  for (let offset = 0; offset < fileSize; offset += partSize) {
    parts.push({ filePath, fileSize, offset, size: Math.min(partSize, fileSize - offset) });
  }
  return parts;
}

function hex16(n: number): string {
  return n.toString(16).toUpperCase().padStart(16, '0');
}

function parseHex(key: string, digits: string): number {
  const n = Number.parseInt(digits, 16);
  if (!Number.isSafeInteger(n)) throw new ParseError(`cannot parse part "${key}": number 0x${digits} is too large`);
  return n;
}
