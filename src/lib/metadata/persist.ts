import { readFile } from 'node:fs/promises';
import type { Logger } from '../logger/index.ts';
import { METRIC_TYPES, type MetricType } from '../protoparser/common/metadata.ts';
import { writeFileAtomicAsync } from '../storage/index.ts';
import type { MetadataStore, StoredMetadata } from './store.ts';

// The metadata store on disk: one JSON object per line, least recently written first,
//   {"accountID":0,"projectID":0,"metric":"up","type":"gauge","help":"…","unit":""}
// written whole and atomically (temp file, fsync, rename) at shutdown and, when the content
// changed, every interval; read back at start. Losing it costs nothing permanent: senders repeat
// their metadata (every scrape, every remote-write metadata interval), so it is rebuilt.

/** METADATA_FILE is the file's name in the storage data directory. */
export const METADATA_FILE = 'metadata.jsonl';

const TYPES: ReadonlySet<string> = new Set(METRIC_TYPES);

/** encodeMetadata renders entries as the file's lines. */
export function encodeMetadata(entries: readonly StoredMetadata[]): string {
  return entries.map((e) => `${JSON.stringify({ accountID: e.accountID, projectID: e.projectID, metric: e.metric, type: e.type, help: e.help, unit: e.unit })}\n`).join('');
}

/** decodeMetadata reads the file's lines; lines that are not entries are counted in `bad` and skipped. */
export function decodeMetadata(text: string): { entries: StoredMetadata[]; bad: number } {
  const entries: StoredMetadata[] = [];
  let bad = 0;
  for (const line of text.split('\n')) {
    if (line === '') continue;
    try {
      const o = JSON.parse(line) as Record<string, unknown>;
      const { accountID, projectID, metric, type, help, unit } = o;
      if (!isTenantId(accountID) || !isTenantId(projectID) || typeof metric !== 'string' || metric === '' || typeof type !== 'string' || !TYPES.has(type) || typeof help !== 'string' || typeof unit !== 'string') {
        bad++;
        continue;
      }
      entries.push({ accountID, projectID, metric, type: type as MetricType, help, unit });
    } catch {
      bad++;
    }
  }
  return { entries, bad };
}

const isTenantId = (v: unknown): v is number => typeof v === 'number' && Number.isInteger(v) && v >= 0 && v <= 0xffffffff;

/**
 * loadMetadata fills store from path. A missing file is an empty store; an unreadable one, or bad
 * lines, are logged and skipped (the metadata is rebuilt from senders).
 */
export async function loadMetadata(store: MetadataStore, path: string, logger: Logger): Promise<void> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') logger.warn({ err }, `cannot read metric metadata from "${path}"; starting without it`);
    return;
  }
  const { entries, bad } = decodeMetadata(text);
  if (bad > 0) logger.warn(`skipped ${bad} unreadable lines of "${path}"`);
  store.load(entries);
}

/** MetadataSaver saves a store to path every intervalMs when it changed, and once more at stop(). */
export class MetadataSaver {
  readonly #store: MetadataStore;
  readonly #path: string;
  readonly #logger: Logger;
  readonly #timer: NodeJS.Timeout;
  #saved: number;
  #saving: Promise<void> = Promise.resolve();

  constructor(store: MetadataStore, path: string, intervalMs: number, logger: Logger) {
    this.#store = store;
    this.#path = path;
    this.#logger = logger;
    this.#saved = store.version;
    this.#timer = setInterval(() => void this.save(), intervalMs);
    this.#timer.unref();
  }

  /** save writes the store when it changed since the last save; failures are logged. */
  save(): Promise<void> {
    this.#saving = this.#saving.then(async () => {
      const version = this.#store.version;
      if (version === this.#saved) return;
      try {
        await writeFileAtomicAsync(this.#path, encodeMetadata(this.#store.entries()));
        this.#saved = version;
      } catch (err) {
        this.#logger.warn({ err }, 'cannot save metric metadata');
      }
    });
    return this.#saving;
  }

  /** stop ends the periodic saves and saves a last time. */
  async stop(): Promise<void> {
    clearInterval(this.#timer);
    await this.save();
  }
}
