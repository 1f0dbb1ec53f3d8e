import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { errorMessage } from './errors.ts';
import { PART_NAME_RE, writeFileAtomic } from './fs-util.ts';

/** MANIFEST_FILE lists the live parts of a directory; parts not listed are garbage. */
export const MANIFEST_FILE = 'parts.json';

/**
 * readManifest returns the part names recorded in dir/parts.json, or undefined when the file does
 * not exist. A damaged manifest is an error: guessing the live set could count a part twice.
 */
export function readManifest(dir: string): string[] | undefined {
  const path = join(dir, MANIFEST_FILE);
  if (!existsSync(path)) return undefined;
  try {
    const doc = JSON.parse(readFileSync(path, 'utf8')) as { parts?: unknown };
    if (!Array.isArray(doc.parts) || !doc.parts.every((p) => typeof p === 'string' && PART_NAME_RE.test(p))) {
      throw new Error('"parts" must be an array of part names');
    }
    return doc.parts as string[];
  } catch (err) {
    throw new Error(`cannot read manifest "${path}": ${errorMessage(err)}`, { cause: err });
  }
}

/** writeManifest atomically records names as the live parts of dir. */
export function writeManifest(dir: string, names: readonly string[]): void {
  writeFileAtomic(join(dir, MANIFEST_FILE), JSON.stringify({ formatVersion: 1, parts: [...names].sort() }) + '\n');
}
