import type { Labels } from '../storageapi/api.ts';
import type { StorageCore } from './core.ts';
import { dayOf, decodeLabelsKey, readTenantKey } from './index/keys.ts';
import type { TenantState } from './tenant-state.ts';
import type { WalRecord } from './wal/wal-record.ts';

interface KnownSeries {
  readonly ts: TenantState;
  readonly labels: Labels;
  day: number;
}

/**
 * WalApplier re-applies WAL records at startup: series records re-create index entries not yet
 * in index parts (IDs above the parts' high-water mark), sample records go back into the active
 * buffer with their per-day index entries, delete records re-mark series. Replaying a record
 * whose effects already reached parts is harmless: index items are checked first, duplicate
 * samples collapse into one.
 */
export class WalApplier {
  readonly #core: StorageCore;
  readonly #hwm: number;
  readonly #known = new Map<number, KnownSeries | null>();
  samples = 0;
  unknownSeries = 0;

  constructor(core: StorageCore) {
    this.#core = core;
    this.#hwm = core.index.maxSeriesId();
  }

  apply(r: WalRecord): void {
    const core = this.#core;
    if (r.type === 'series') {
      const ts = core.tenantState(r.tenant);
      if (r.id > this.#hwm && core.index.seriesInfo(r.id) === undefined) core.index.addSeries(ts.key, ts.name, r.labelsKey, r.id);
      this.#known.set(r.id, { ts, labels: decodeLabelsKey(r.labelsKey, 0), day: Number.NaN });
      if (r.id > core.maxSeriesId) core.maxSeriesId = r.id;
    } else if (r.type === 'delete') {
      const ts = core.tenantState(r.tenant);
      for (const id of r.ids) {
        if (core.deleted.add(id, ts.name)) core.index.addDeleted(ts.key, id);
      }
    } else {
      this.#applySamples(r.ids, r.timestamps, r.values);
    }
  }

  #applySamples(ids: Float64Array, timestamps: Float64Array, values: Float64Array): void {
    const core = this.#core;
    const buf = core.active;
    for (let i = 0; i < ids.length; i++) {
      const id = ids[i]!;
      const s = this.#series(id);
      if (s === null || core.deleted.has(id)) continue;
      const day = dayOf(timestamps[i]!);
      if (day !== s.day) {
        if (!core.index.hasDay(s.ts.key, day, id)) core.index.addDay(s.ts.key, day, s.labels, id);
        s.day = day;
      }
      buf.append(buf.slotOf(id), timestamps[i]!, values[i]!);
      this.samples++;
    }
  }

  #series(id: number): KnownSeries | null {
    const known = this.#known.get(id);
    if (known !== undefined) return known;
    const info = this.#core.index.seriesInfo(id);
    let s: KnownSeries | null = null;
    if (info === undefined) {
      // Only a damaged index can get here: samples of a series no record describes.
      this.unknownSeries++;
    } else {
      s = { ts: this.#core.tenantState(readTenantKey(info.tenant, 0)), labels: decodeLabelsKey(info.labels, 0), day: Number.NaN };
    }
    this.#known.set(id, s);
    return s;
  }
}
