import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createLogger } from '../logger/index.ts';
import { DEFAULT_TENANT } from '../storageapi/index.ts';
import { decodeMetadata, encodeMetadata, loadMetadata, MetadataSaver } from './persist.ts';
import { MetadataStore } from './store.ts';

const dirs: string[] = [];
afterEach(async () => {
  for (const d of dirs.splice(0)) await rm(d, { recursive: true, force: true });
});

function quietLogger() {
  const lines: string[] = [];
  const { logger, stop } = createLogger({ format: 'default', level: 'INFO', jsonFields: {}, timezone: 'UTC', disableTimestamps: true, errorsPerSecondLimit: 0, warnsPerSecondLimit: 0, write: (l) => lines.push(l) });
  stop();
  return { logger, lines };
}

describe('metadata file', () => {
  it('round-trips entries in their order', () => {
    const entries = [
      { accountID: 0, projectID: 0, metric: 'up', type: 'gauge' as const, help: 'a\nb "c"', unit: '' },
      { accountID: 7, projectID: 3, metric: 'ü.total', type: 'counter' as const, help: '', unit: 'seconds' },
    ];
    expect(decodeMetadata(encodeMetadata(entries))).toEqual({ entries, bad: 0 });
  });

  it('skips lines that are not entries', () => {
    const good = encodeMetadata([{ accountID: 0, projectID: 0, metric: 'up', type: 'gauge', help: '', unit: '' }]);
    const text = `${good}{"metric":"x"}\nnot json\n{"accountID":-1,"projectID":0,"metric":"y","type":"gauge","help":"","unit":""}\n{"accountID":0,"projectID":0,"metric":"z","type":"nope","help":"","unit":""}\n${good}`;
    const r = decodeMetadata(text);
    expect(r.entries).toHaveLength(2);
    expect(r.bad).toBe(4);
  });

  it('is saved when the store changed and loaded back at start', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'strata-metadata-'));
    dirs.push(dir);
    const path = join(dir, 'metadata.jsonl');
    const { logger, lines } = quietLogger();
    const store = new MetadataStore(1 << 20);
    const saver = new MetadataSaver(store, path, 3_600_000, logger);
    store.add(DEFAULT_TENANT, { metric: 'up', type: 'gauge', help: 'Up.' });
    await saver.save();
    store.add(DEFAULT_TENANT, { metric: 'x', unit: 'bytes' });
    await saver.stop();
    const again = new MetadataStore(1 << 20);
    await loadMetadata(again, path, logger);
    expect(again.entries()).toEqual(store.entries());
    // a missing file is an empty store, silently; a broken one is logged
    await loadMetadata(new MetadataStore(1 << 20), join(dir, 'none.jsonl'), logger);
    expect(lines).toEqual([]);
    await writeFile(path, 'garbage\n');
    const broken = new MetadataStore(1 << 20);
    await loadMetadata(broken, path, logger);
    expect(broken.size).toBe(0);
    expect(lines.join('')).toContain('skipped 1 unreadable lines');
    expect(await readFile(path, 'utf8')).toBe('garbage\n');
  });
});
