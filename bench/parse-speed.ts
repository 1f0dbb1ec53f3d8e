// Parse speed of every streamed ingestion format, keyed (the single node's path) and as rows (the
// cluster insert node and import paths): `node bench/parse-speed.ts [DIR] [RUNS] [ONLY]`. DIR holds the
// bench kit's generator output (../shared/bench/gen.mjs --format prom|influx|jsonl, files w.prom,
// w.influx, w.jsonl; remote-write requests are encoded here from w.prom's rows, 2000 series each).
// Each run parses the whole body in 64 KiB chunks; prints the median CPU time (user + system,
// this process) of RUNS runs after two warm-up runs (only the cases matching the regexp ONLY, the
// fourth argument), and rows/s at that median. The keyed path
// keeps its dictionary across runs, as a long-lived endpoint does (steady state: every key known).

import { readFileSync } from 'node:fs';
import { common, influx, jsonline, prometheus, remotewrite } from '../src/lib/protoparser/index.ts';

const dir = process.argv[2] ?? '/tmp/hp';
const runs = Number(process.argv[3] ?? 9);
// Optional regexp: time only the cases whose name matches (e.g. under callgrind).
const only = new RegExp(process.argv[4] ?? '');
const now = (): number => 1_700_000_000_000;

function chunks(b: Buffer, size = 65_536): Buffer[] {
  const out: Buffer[] = [];
  for (let i = 0; i < b.length; i += size) out.push(b.subarray(i, i + size));
  return out;
}

async function time(name: string, run: () => Promise<number>): Promise<void> {
  if (!only.test(name)) return;
  const cpu: number[] = [];
  let rows = 0;
  for (let r = 0; r < runs + 2; r++) {
    const t0 = process.cpuUsage();
    rows = await run();
    const d = process.cpuUsage(t0);
    if (r >= 2) cpu.push((d.user + d.system) / 1000);
  }
  cpu.sort((a, b) => a - b);
  const med = cpu[cpu.length >> 1]!;
  console.log(`${name.padEnd(22)} ${String(rows).padStart(7)} rows  median ${med.toFixed(1).padStart(7)} ms CPU  [${cpu[0]!.toFixed(1)}–${cpu[cpu.length - 1]!.toFixed(1)}]  ${Math.round(rows / med * 1000).toLocaleString('en-US')} rows/s`);
}

const KEY_BYTES = 64 << 20;
const prom = readFileSync(`${dir}/w.prom`);
const infl = readFileSync(`${dir}/w.influx`);
const jsonl = readFileSync(`${dir}/w.jsonl`);

// Remote-write requests: w.prom's series, 2000 per request, all their samples (built only when
// a remote-write case runs: parsing w.prom as rows takes long under callgrind).
let rwRequests: Buffer[] | undefined;
function requests(): Buffer[] {
  if (rwRequests !== undefined) return rwRequests;
  const bySeries = new Map<string, { labels: common.Labels; timestamps: number[]; values: number[] }>();
  for (const r of prometheus.parse(prom.toString('utf8'), { now }).rows) {
    const k = JSON.stringify(r.labels);
    let s = bySeries.get(k);
    if (s === undefined) {
      s = { labels: r.labels, timestamps: [], values: [] };
      bySeries.set(k, s);
    }
    s.timestamps.push(r.timestamp);
    s.values.push(r.value);
  }
  const all = [...bySeries.values()];
  const requests: Buffer[] = [];
  for (let i = 0; i < all.length; i += 2000) requests.push(remotewrite.encodeWriteRequestSnappy(all.slice(i, i + 2000)));
  return (rwRequests = requests);
}

const discard = (): void => {};
const limits = { maxBodyBytes: 64 << 20, maxDecodedBytes: 256 << 20 };
const promKeys = new common.SeriesKeyDictionary(KEY_BYTES);
const inflKeys = new common.SeriesKeyDictionary(KEY_BYTES);
const jsonKeys = new common.SeriesKeyDictionary(KEY_BYTES);
const rwKeys = new common.SeriesKeyDictionary(KEY_BYTES);

await time('prometheus keyed', async () => (await prometheus.streamPrometheusKeyed(chunks(prom), { now, keys: promKeys, onBatch: discard })).rows);
await time('prometheus rows', async () => (await prometheus.streamPrometheus(chunks(prom), { now, onBatch: discard })).rows);
await time('influx keyed', async () => (await influx.streamInfluxKeyed(chunks(infl), { now, keys: inflKeys, onBatch: discard })).rows);
await time('influx rows', async () => (await influx.streamInflux(chunks(infl), { now, onBatch: discard })).rows);
await time('jsonline keyed', async () => (await jsonline.streamJsonLinesKeyed(chunks(jsonl), { keys: jsonKeys, onBatch: discard })).rows);
await time('jsonline rows', async () => (await jsonline.streamJsonLines(chunks(jsonl), { onBatch: discard })).rows);
await time('remotewrite keyed', async () => {
  let n = 0;
  for (const body of requests()) n += (await remotewrite.importRemoteWriteKeyed([body], { ...limits, keys: rwKeys, onBatch: discard })).rows;
  return n;
});
await time('remotewrite rows', async () => {
  let n = 0;
  for (const body of requests()) n += (await remotewrite.importRemoteWrite([body], { ...limits, onBatch: discard })).rows;
  return n;
});
