// Byte-codec micro-benchmark (not a test): the hot paths that read and write varints — storage
// block decode (values, timestamps), remote write parse, native import parse, and the plain
// reader/writer the storage RPC uses. Written against the public entry points only, so the same
// script measures the code before and after a change of the byte reader/writer.
//
//   node bench/bytes-codec.ts [workload|all] [rounds=15]
//
// Prints, per workload, the median and min main-thread CPU time of one round (process.cpuUsage,
// user+system), which depends far less on the load of a shared machine than wall time. Under
// `valgrind --tool=callgrind node --jitless …` a single workload gives instruction counts.

import { decodeTimestamps } from '../src/lib/storage/encoding/timestamps-decode.ts';
import { encodeTimestamps } from '../src/lib/storage/encoding/timestamps.ts';
import { decodeValues } from '../src/lib/storage/encoding/values-decode.ts';
import { ValueEncoder } from '../src/lib/storage/encoding/values.ts';
import { encodeSeries, header } from '../src/lib/protoparser/native/write.ts';
import { parse as parseNative } from '../src/lib/protoparser/native/parse.ts';
import { encodeWriteRequest } from '../src/lib/protoparser/remotewrite/encode.ts';
import { parse as parseRemoteWrite } from '../src/lib/protoparser/remotewrite/parse.ts';

// The byte writer moved from storage/encoding/bytes.ts to lib/bytes; take whichever exists.
type Writer = { pos: number; buf: Buffer; writeUvarint(v: number): void; writeVarint(v: number): void; reset(): void; bytes(): Uint8Array };
type Reader = { pos: number; readUvarint(): number; readVarint(): number };
interface BytesModule {
  ByteWriter: new (cap?: number) => Writer;
  ByteReader: new (buf: Uint8Array, what: string) => Reader;
}
const bytesMod: BytesModule = await import('../src/lib/bytes/index.ts' as string).catch(() => import('../src/lib/storage/encoding/bytes.ts' as string));

const BLOCK = 8192;
let seed = 42;
const rand = (): number => {
  seed = (seed * 1664525 + 1013904223) >>> 0;
  return seed / 2 ** 32;
};

// --- storage blocks: counters, decimal gauges, float ratios; scrape timestamps with jitter ---
interface Block {
  readonly enc: number;
  readonly data: Uint8Array;
}
function valueBlocks(): Block[] {
  const enc = new ValueEncoder(0);
  const out: Block[] = [];
  const shapes: ((i: number, prev: number) => number)[] = [
    (_i, p) => p + Math.floor(rand() * 5000), // bytes counter: deltas of up to 3 varint bytes
    (_i, p) => Math.round((p + rand() * 0.4 - 0.2) * 100) / 100, // decimal gauge
    (_i, p) => p + Math.round(rand() * 100) / 100, // cpu seconds counter
    (i) => 1e9 + i * 4096 + Math.floor(rand() * 3) * 4096, // memory gauge: delta2
  ];
  for (const shape of shapes) {
    for (let b = 0; b < 8; b++) {
      const vals = new Float64Array(BLOCK);
      let v = 1000 + b;
      for (let i = 0; i < BLOCK; i++) vals[i] = v = shape(i, v);
      const w = new bytesMod.ByteWriter(BLOCK * 4);
      const e = enc.encode(vals, 0, BLOCK, w as never);
      out.push({ enc: e, data: Buffer.from(w.bytes()) });
    }
  }
  return out;
}
function timestampBlocks(): (Block & { first: number })[] {
  const out: (Block & { first: number })[] = [];
  for (let b = 0; b < 16; b++) {
    const ts = new Float64Array(BLOCK);
    let t = 1_700_000_000_000 + b;
    for (let i = 0; i < BLOCK; i++) ts[i] = t += 15_000 + Math.floor(rand() * 40) - 20 + (i % 97 === 0 ? 900 : 0);
    const w = new bytesMod.ByteWriter(BLOCK * 4);
    const e = encodeTimestamps(ts, 0, BLOCK, w as never, 0);
    out.push({ enc: e, data: Buffer.from(w.bytes()), first: ts[0]! });
  }
  return out;
}

function series(nSeries: number, nSamples: number) {
  const list = [];
  for (let s = 0; s < nSeries; s++) {
    const ts: number[] = [];
    const vs: number[] = [];
    let v = rand() * 1e6;
    for (let i = 0; i < nSamples; i++) {
      ts.push(1_700_000_000_000 + i * 15_000);
      vs.push((v += Math.floor(rand() * 1000)));
    }
    const labels = [
      { name: '__name__', value: `node_metric_${s % 50}_total` },
      { name: 'instance', value: `host-${s % 200}.example.com:9100` },
      { name: 'job', value: 'node' },
      { name: 'mode', value: ['user', 'system', 'idle', 'iowait'][s % 4]! },
    ];
    list.push({ labels, timestamps: ts, values: vs });
  }
  return list;
}

const vBlocks = valueBlocks();
const tBlocks = timestampBlocks();
const out = new Float64Array(BLOCK);
const rwBody = encodeWriteRequest(series(2000, 10));
const nativeBody = Buffer.concat([header(), ...series(500, 400).map((s) => encodeSeries(s.labels, s.timestamps, s.values))]);
const nums: number[] = [];
for (let i = 0; i < 200_000; i++) nums.push(i % 3 === 0 ? Math.floor(rand() * 100) : i % 3 === 1 ? Math.floor(rand() * 1e6) : 1_700_000_000_000 + i);
const rpcWriter = new bytesMod.ByteWriter(1 << 20);

let sink = 0;
const WORKLOADS: Record<string, () => void> = {
  'storage-values-decode': () => {
    for (let k = 0; k < 10; k++) for (const b of vBlocks) {
      decodeValues(b.enc, b.data, BLOCK, out, 0, 'bench values');
      sink += out[BLOCK - 1]!;
    }
  },
  'storage-timestamps-decode': () => {
    for (let k = 0; k < 20; k++) for (const b of tBlocks) {
      decodeTimestamps(b.enc, b.data, BLOCK, b.first, out, 0, 'bench timestamps');
      sink += out[BLOCK - 1]!;
    }
  },
  'remotewrite-parse': () => {
    for (let k = 0; k < 4; k++) sink += parseRemoteWrite(rwBody).rows.length;
  },
  'native-parse': () => {
    sink += parseNative(nativeBody).length;
  },
  'rpc-varint-roundtrip': () => {
    const w = rpcWriter;
    w.reset();
    for (let i = 0; i < nums.length; i++) {
      w.writeUvarint(nums[i]!);
      w.writeVarint(-nums[i]!);
    }
    const r = new bytesMod.ByteReader(w.bytes(), 'bench');
    for (let i = 0; i < nums.length; i++) sink += r.readUvarint() + r.readVarint();
  },
};

const which = process.argv[2] ?? 'all';
const rounds = Number(process.argv[3] ?? 15);
const names = which === 'all' ? Object.keys(WORKLOADS) : [which];
for (const name of names) {
  const fn = WORKLOADS[name];
  if (!fn) throw new Error(`unknown workload "${name}"; have ${Object.keys(WORKLOADS).join(', ')}`);
  for (let i = 0; i < 5; i++) fn(); // warm up: let the JIT settle
  const times: number[] = [];
  for (let r = 0; r < rounds; r++) {
    const t0 = process.cpuUsage();
    fn();
    const d = process.cpuUsage(t0);
    times.push((d.user + d.system) / 1000);
  }
  times.sort((a, b) => a - b);
  console.log(`${name.padEnd(28)} median ${times[Math.floor(times.length / 2)]!.toFixed(2).padStart(8)} ms  min ${times[0]!.toFixed(2).padStart(8)} ms  (${rounds} rounds)`);
}
if (sink === 0.5) console.log('');
