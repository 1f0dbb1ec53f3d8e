// xxHash64 (seed 0), used where PromQL semantics depend on Prometheus' label-set hash
// (limit_ratio sampling). BigInt arithmetic: called once per series, not per sample.

import type { Labels } from '../storageapi/index.ts';

const M = (1n << 64n) - 1n;
const P1 = 0x9e3779b185ebca87n;
const P2 = 0xc2b2ae3d27d4eb4fn;
const P3 = 0x165667b19e3779f9n;
const P4 = 0x85ebca77c2b2ae63n;
const P5 = 0x27d4eb2f165667c5n;

const rotl = (x: bigint, r: bigint): bigint => ((x << r) | (x >> (64n - r))) & M;
const round = (acc: bigint, input: bigint): bigint => (rotl((acc + input * P2) & M, 31n) * P1) & M;
const mergeRound = (acc: bigint, val: bigint): bigint => (((acc ^ round(0n, val)) * P1) & M) + P4 & M;

function read64(b: Uint8Array, i: number): bigint {
  let v = 0n;
  for (let k = 7; k >= 0; k--) v = (v << 8n) | BigInt(b[i + k]!);
  return v;
}

function read32(b: Uint8Array, i: number): bigint {
  return BigInt((b[i]! | (b[i + 1]! << 8) | (b[i + 2]! << 16) | (b[i + 3]! << 24)) >>> 0);
}

/** xxhash64 returns the 64-bit xxHash of bytes with seed 0. */
export function xxhash64(b: Uint8Array): bigint {
  const len = b.length;
  let i = 0;
  let h: bigint;
  if (len >= 32) {
    let v1 = (P1 + P2) & M;
    let v2 = P2;
    let v3 = 0n;
    let v4 = (M + 1n - P1) & M;
    for (; i + 32 <= len; i += 32) {
      v1 = round(v1, read64(b, i));
      v2 = round(v2, read64(b, i + 8));
      v3 = round(v3, read64(b, i + 16));
      v4 = round(v4, read64(b, i + 24));
    }
    h = (rotl(v1, 1n) + rotl(v2, 7n) + rotl(v3, 12n) + rotl(v4, 18n)) & M;
    for (const v of [v1, v2, v3, v4]) h = mergeRound(h, v);
  } else {
    h = P5;
  }
  h = (h + BigInt(len)) & M;
  for (; i + 8 <= len; i += 8) h = ((rotl(h ^ round(0n, read64(b, i)), 27n) * P1) & M) + P4 & M;
  if (i + 4 <= len) {
    h = ((rotl(h ^ ((read32(b, i) * P1) & M), 23n) * P2) & M) + P3 & M;
    i += 4;
  }
  for (; i < len; i++) h = (rotl(h ^ ((BigInt(b[i]!) * P5) & M), 11n) * P1) & M;
  h ^= h >> 33n;
  h = (h * P2) & M;
  h ^= h >> 29n;
  h = (h * P3) & M;
  h ^= h >> 32n;
  return h;
}

const encoder = new TextEncoder();

/** labelsHash is Prometheus' labels.Hash(): xxHash64 of `name 0xff value 0xff …`. */
export function labelsHash(ls: Labels): bigint {
  const parts: Uint8Array[] = [];
  for (const l of ls) parts.push(encoder.encode(l.name), Uint8Array.of(0xff), encoder.encode(l.value), Uint8Array.of(0xff));
  const total = parts.reduce((n, p) => n + p.length, 0);
  const buf = new Uint8Array(total);
  let o = 0;
  for (const p of parts) {
    buf.set(p, o);
    o += p.length;
  }
  return xxhash64(buf);
}
