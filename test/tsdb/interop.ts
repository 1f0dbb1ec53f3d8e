// Shared pieces of the interop tests (real Prometheus and vmagent writing to tsdb): free ports,
// a scrape config, tsdb's stored samples with exact value bits, and a diff against a recorder.

import { writeFile } from 'node:fs/promises';
import { createServer, type AddressInfo } from 'node:net';
import { join } from 'node:path';
import { native } from '../../src/lib/protoparser/index.ts';
import { get, labelsKey } from './client.ts';
import { type RecordedSample } from './remote-write-recorder.ts';

/** freePort asks the kernel for a free port on 127.0.0.1 (for binaries that cannot report port 0). */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/**
 * writeScrapeConfig writes a Prometheus-format config scraping target every second, with the
 * given remote_write section (Prometheus) or none (vmagent takes -remoteWrite.url flags).
 */
export async function writeScrapeConfig(dir: string, target: string, remoteWrite: string = ''): Promise<string> {
  const path = join(dir, 'scrape.yml');
  await writeFile(path, [
    'global:',
    '  scrape_interval: 1s',
    '  scrape_timeout: 1s',
    'scrape_configs:',
    '  - job_name: interop',
    '    static_configs:',
    `      - targets: ['${target}']`,
    '        labels:',
    '          team: storage',
    remoteWrite,
    '',
  ].join('\n'));
  return path;
}

const bitsView = (values: Float64Array): BigUint64Array => new BigUint64Array(values.buffer.slice(values.byteOffset, values.byteOffset + values.byteLength));

/** storedSamples reads every sample tsdb holds through /api/v1/export/native, keyed like the recorder's. */
export async function storedSamples(base: string): Promise<Map<string, RecordedSample>> {
  const r = await get(`${base}/api/v1/export/native?match[]={__name__=~".%2B"}&start=0`);
  if (r.status !== 200) throw new Error(`native export: status ${r.status}: ${r.text}`);
  const out = new Map<string, RecordedSample>();
  for (const s of native.parse(r.body)) {
    const labels = Object.fromEntries(s.labels.map((l) => [l.name, l.value]));
    const key = labelsKey(labels);
    const bits = bitsView(s.values);
    s.timestamps.forEach((t, i) => out.set(`${key}@${t}`, { labels, timestamp: t, bits: bits[i]! }));
  }
  return out;
}

/** SampleDiff lists what differs between what a client sent and what tsdb stored (up to 5 of each). */
export interface SampleDiff {
  readonly missing: string[];
  readonly extra: string[];
  readonly changed: string[];
}

/** diffSamples compares sent and stored samples with timestamps at or before maxTs. */
export function diffSamples(sent: ReadonlyMap<string, RecordedSample>, stored: ReadonlyMap<string, RecordedSample>, maxTs = Infinity): SampleDiff {
  const missing: string[] = [];
  const extra: string[] = [];
  const changed: string[] = [];
  for (const [key, s] of sent) {
    if (s.timestamp > maxTs) continue;
    const got = stored.get(key);
    if (got === undefined) missing.push(key);
    else if (got.bits !== s.bits) changed.push(`${key}: sent 0x${s.bits.toString(16)}, stored 0x${got.bits.toString(16)}`);
  }
  for (const [key, s] of stored) if (s.timestamp <= maxTs && !sent.has(key)) extra.push(key);
  return { missing: missing.slice(0, 5), extra: extra.slice(0, 5), changed: changed.slice(0, 5) };
}

/** namesOf lists the distinct metric names among samples. */
export function namesOf(samples: ReadonlyMap<string, RecordedSample>): string[] {
  return [...new Set([...samples.values()].map((s) => s.labels.__name__ ?? ''))].sort();
}
