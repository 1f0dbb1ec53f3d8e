import type { Labels, MetricRow, Tenant } from '../storageapi/api.ts';
import { LimitExceededError } from '../storageapi/errors.ts';
import type { StorageCore } from './core.ts';
import { ByteWriter } from '../bytes/index.ts';
import { MS_PER_DAY, labelsKey } from './index/keys.ts';
import type { KeyedRows } from './keyed-rows.ts';
import { type RejectReason, normalizeLabels } from './labels.ts';
import { acceptedRange } from './retention.ts';
import { ownString } from './series-cache.ts';
import type { SeriesRef, TenantState } from './tenant-state.ts';
import { SamplesRecord, appendSeriesRecord } from './wal/wal-record.ts';

/** MAX_VALID_TIMESTAMP is the last ms of year 9999; timestamps must be in [0, this]. */
export const MAX_VALID_TIMESTAMP = 253_402_300_799_999;

// Flag names as LimitExceededError carries them: without the dash.
const LIMIT_FLAGS: Partial<Record<RejectReason, 'maxLabelsPerTimeseries' | 'maxLabelValueLen'>> = {
  too_many_labels: 'maxLabelsPerTimeseries',
  label_too_long: 'maxLabelValueLen',
};

/** Rejections collects why rows of one call were not stored. */
export class Rejections {
  readonly counts = new Map<RejectReason, number>();
  readonly #first = new Map<RejectReason, string>();

  note(reason: RejectReason, message: string): void {
    this.counts.set(reason, (this.counts.get(reason) ?? 0) + 1);
    if (!this.#first.has(reason)) this.#first.set(reason, message);
  }

  get total(): number {
    let n = 0;
    for (const v of this.counts.values()) n += v;
    return n;
  }

  /**
   * error returns what addRows throws: a LimitExceededError naming the flag when a limit was
   * broken, a plain Error for malformed rows, undefined when nothing was rejected or only rows
   * outside retention were skipped (counted and logged, not failed, as VictoriaMetrics does).
   */
  error(rowsInCall: number, limits: { maxLabelsPerTimeseries: number; maxLabelValueLen: number }): Error | undefined {
    const summary = [...this.counts].map(([r, n]) => `${n} ${r.replaceAll('_', ' ')}`).join(', ');
    const head = `rejected ${this.total} of ${rowsInCall} rows (${summary})`;
    for (const [reason, flag] of Object.entries(LIMIT_FLAGS) as [RejectReason, string][]) {
      const msg = this.#first.get(reason);
      if (msg === undefined) continue;
      const limit = reason === 'too_many_labels' ? limits.maxLabelsPerTimeseries : limits.maxLabelValueLen;
      return new LimitExceededError(`${head}: ${msg}`, flag, limit);
    }
    for (const reason of ['invalid_labels', 'invalid_timestamp'] as const) {
      const msg = this.#first.get(reason);
      if (msg !== undefined) return new Error(`${head}: ${msg}`);
    }
    return undefined;
  }

  /** retentionMessage describes skipped rows outside retention, if any. */
  retentionMessage(): string | undefined {
    return this.#first.get('outside_retention');
  }
}

/** WriteState is what one writeRows/writeKeyed call carries from row to row. */
interface WriteState {
  ts: TenantState;
  rej: Rejections;
  minTs: number;
  maxTs: number;
  hour: number;
  /** n counts the samples placed in the record so far. */
  n: number;
}

/**
 * WritePath turns rows into buffered, WAL-logged samples. writeRows is synchronous: it resolves
 * series IDs (rawKey cache, labels cache, index, or a new series), writes one WAL write(2) for
 * the whole call, then appends to the active buffer. No per-sample object survives the call.
 */
export class WritePath {
  readonly #core: StorageCore;
  readonly #seriesRecords = new ByteWriter(4096);
  // Reused across calls: the WAL write copies them into the kernel before writeRows returns, and
  // allocating a fresh record per call would leave tens of MB of garbage ArrayBuffers at 2M rows/s.
  #record = new SamplesRecord(1024);
  #slots = new Int32Array(1024);
  // The state of the call in progress (calls are synchronous, so one is enough).
  readonly #state: WriteState = { ts: undefined!, rej: undefined!, minTs: 0, maxTs: 0, hour: 0, n: 0 };

  constructor(core: StorageCore) {
    this.#core = core;
  }

  /** writeRows stores the valid rows of a call; returns the rejected ones' summary. */
  writeRows(tenant: Tenant, rows: readonly MetricRow[]): Rejections {
    const w = this.#begin(tenant, rows.length);
    const ts = w.ts;
    // Formats that carry many samples per series (JSON lines, remote write) hand over one labels
    // array for all of them: the same array is the same series, found once.
    let lastLabels: Labels | undefined;
    let lastRef: SeriesRef | undefined;
    for (const row of rows) {
      let t = row.timestamp;
      if (!Number.isInteger(t)) t = Math.round(t);
      if (!(t >= w.minTs && t <= w.maxTs)) {
        this.#rejectTimestamp(w.rej, t, w.minTs, w.maxTs);
        continue;
      }
      let ref = row.labels === lastLabels ? lastRef : row.rawKey !== undefined ? ts.byRawKey.get(row.rawKey) : undefined;
      if (ref === undefined) {
        ref = this.#resolve(ts, row.labels, w.rej);
        if (ref === undefined) continue;
        // A parser's rawKey may be a slice of a whole request body: keep a copy of its own.
        if (row.rawKey !== undefined) ts.byRawKey.set(ownString(row.rawKey), ref);
      }
      lastLabels = row.labels;
      lastRef = ref;
      this.#place(w, ref, t, row.value, row.labels);
    }
    return this.#end(w);
  }

  /**
   * writeKeyed is writeRows for a keyed batch: the series of key k is looked up once per key
   * table (then cached by number), so rows of known series cost no hashing and no labels.
   */
  writeKeyed(tenant: Tenant, batch: KeyedRows): Rejections {
    const n = batch.length;
    const w = this.#begin(tenant, n);
    const refs = w.ts.keyedRefs(batch.table);
    const labels = batch.table.labels;
    const { keys, timestamps, values } = batch;
    for (let i = 0; i < n; i++) {
      let t = timestamps[i]!;
      if (!Number.isInteger(t)) t = Math.round(t);
      if (!(t >= w.minTs && t <= w.maxTs)) {
        this.#rejectTimestamp(w.rej, t, w.minTs, w.maxTs);
        continue;
      }
      const k = keys[i]!;
      let ref = refs[k];
      if (ref === undefined) {
        const l = labels[k];
        if (l === undefined) {
          // A caller's bug, but throwing here would leave series created above without their WAL record.
          w.rej.note('invalid_labels', `key ${k} is not in its key table of ${labels.length} keys`);
          continue;
        }
        ref = this.#resolve(w.ts, l, w.rej);
        if (ref === undefined) continue;
        // Fill gaps so the array stays a packed one (a far index would make it a slow dictionary).
        while (refs.length < k) refs.push(undefined);
        refs[k] = ref;
      }
      this.#place(w, ref, t, values[i]!, labels[k]!);
    }
    return this.#end(w);
  }

  #begin(tenant: Tenant, rows: number): WriteState {
    const core = this.#core;
    const now = core.opts.now();
    const range = acceptedRange(now, core.opts.retentionMs);
    if (this.#record.capacity < rows) {
      this.#record = new SamplesRecord(rows);
      this.#slots = new Int32Array(rows);
    }
    this.#seriesRecords.reset();
    const w = this.#state;
    w.ts = core.tenantState(tenant);
    w.rej = new Rejections();
    w.minTs = Math.max(0, range.minTs);
    w.maxTs = Math.min(MAX_VALID_TIMESTAMP, range.maxTs);
    w.hour = Math.floor(now / 3_600_000);
    w.n = 0;
    return w;
  }

  // place appends one accepted sample of series ref to the record being built.
  #place(w: WriteState, ref: SeriesRef, t: number, value: number, labels: Labels): void {
    const day = Math.floor(t / MS_PER_DAY);
    if (day !== ref.day) this.#ensureDay(w.ts, ref, day, labels);
    if (ref.hour !== w.hour) {
      w.ts.markActive(ref.id, w.hour);
      ref.hour = w.hour;
    }
    const buf = this.#core.active;
    if (ref.gen !== buf.gen) {
      ref.gen = buf.gen;
      ref.slot = buf.slotOf(ref.id);
    }
    const n = w.n;
    this.#slots[n] = ref.slot;
    this.#record.ids[n] = ref.id;
    this.#record.timestamps[n] = t;
    this.#record.values[n] = value;
    w.n = n + 1;
  }

  #end(w: WriteState): Rejections {
    const core = this.#core;
    const n = w.n;
    this.#commit(this.#record, this.#slots, n);
    w.ts.rowsAdded += n;
    core.counters.rowsAdded += n;
    for (const [reason, count] of w.rej.counts) core.counters.rowsRejected[reason] += count;
    return w.rej;
  }

  #commit(rec: SamplesRecord, slots: Int32Array, n: number): void {
    const core = this.#core;
    const chunks: Uint8Array[] = [];
    if (this.#seriesRecords.pos > 0) chunks.push(this.#seriesRecords.bytes());
    if (n > 0) chunks.push(rec.seal(n));
    if (chunks.length === 0) return;
    core.wal.append(chunks);
    if (n === 0) return;
    // seal() moved the arrays together: read them back at their sealed offsets.
    const tsv = rec.sealedTimestamps(n);
    const vals = rec.sealedValues(n);
    core.active.appendBatch(slots, tsv, vals, n);
  }

  #rejectTimestamp(rej: Rejections, t: number, minTs: number, maxTs: number): void {
    if (!Number.isFinite(t) || t < 0 || t > MAX_VALID_TIMESTAMP) {
      rej.note('invalid_timestamp', `timestamp ${t} is not a time between 1970 and 9999 in milliseconds`);
    } else {
      rej.note('outside_retention', `timestamp ${new Date(t).toISOString()} is outside the accepted range ${new Date(minTs).toISOString()} .. ${new Date(maxTs).toISOString()}`);
    }
  }

  /** resolve finds or creates the series of a label set; undefined when the labels are rejected. */
  #resolve(ts: TenantState, labels: Labels, rej: Rejections): SeriesRef | undefined {
    const core = this.#core;
    const check = normalizeLabels(labels, core.opts);
    if (!check.ok) {
      rej.note(check.reason, check.message);
      return undefined;
    }
    const key = labelsKey(check.labels);
    const cached = ts.byLabels.get(key);
    if (cached !== undefined) return cached;
    let id = core.index.findSeries(ts.key, key, core.isDeleted);
    let day = Number.NaN;
    if (id === undefined) {
      id = ++core.maxSeriesId;
      core.index.addSeries(ts.key, ts.name, key, id);
      appendSeriesRecord(this.#seriesRecords, ts.tenant, id, key);
      ts.seriesCreated++;
      core.counters.seriesCreated++;
      day = -1; // new: its day items are added without looking first
    }
    const ref: SeriesRef = { id, day, hour: -1, gen: -1, slot: -1 };
    ts.byLabels.set(key, ref);
    return ref;
  }

  #ensureDay(ts: TenantState, ref: SeriesRef, day: number, labels: Labels): void {
    const core = this.#core;
    if (ref.day === -1 || !core.index.hasDay(ts.key, day, ref.id)) {
      const check = normalizeLabels(labels, core.opts);
      if (check.ok) core.index.addDay(ts.key, day, check.labels, ref.id);
    }
    ref.day = day;
  }
}
