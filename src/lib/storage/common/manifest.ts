import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { errorMessage } from './errors.ts';
import { PART_NAME_RE, writeFileAtomic, writeFileAtomicAsync } from './fs-util.ts';

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

function manifestText(names: readonly string[]): string {
  return JSON.stringify({ formatVersion: 1, parts: [...names].sort() }) + '\n';
}

/** writeManifest atomically records names as the live parts of dir (synchronously). */
export function writeManifest(dir: string, names: readonly string[]): void {
  writeFileAtomic(join(dir, MANIFEST_FILE), manifestText(names));
}

/**
 * ManifestWriter persists a directory's live set off the event loop. Writes are serialised, and
 * each one records the live set as it is when the write starts (from `current`), so the file
 * always ends up with the latest state. A change is durable when the promise persist() returned
 * resolves; callers delete replaced files or WAL segments only after that.
 */
export class ManifestWriter {
  readonly #dir: string;
  readonly #current: () => readonly string[];
  #chain: Promise<void> = Promise.resolve();
  #stopped = false;

  constructor(dir: string, current: () => readonly string[]) {
    this.#dir = dir;
    this.#current = current;
  }

  persist(): Promise<void> {
    const run = this.#chain.then(() => (this.#stopped ? undefined : writeFileAtomicAsync(join(this.#dir, MANIFEST_FILE), manifestText(this.#current()))));
    this.#chain = run.catch(() => undefined);
    return run;
  }

  /** stop waits for pending writes and makes later persist() calls no-ops (the dir is going away). */
  async stop(): Promise<void> {
    this.#stopped = true;
    await this.#chain;
  }
}
