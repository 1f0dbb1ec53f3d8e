// Timing script for the Prometheus text parser (not a test): `node src/lib/protoparser/prometheus/parse.bench.ts`.
// Parses a node_exporter-like body (HELP/TYPE comments, families of labelled samples, no
// timestamps) repeatedly and prints sample lines per second on one core.

import { parse } from './parse.ts';

function nodeExporterBody(hosts: number): string {
  const out: string[] = [];
  const modes = ['idle', 'iowait', 'irq', 'nice', 'softirq', 'steal', 'system', 'user'];
  for (let h = 0; h < hosts; h++) {
    out.push('# HELP node_cpu_seconds_total Seconds the CPUs spent in each mode.', '# TYPE node_cpu_seconds_total counter');
    for (let cpu = 0; cpu < 8; cpu++) {
      for (const mode of modes) out.push(`node_cpu_seconds_total{cpu="${cpu}",mode="${mode}"} ${(h * 1000 + cpu * 37.25 + mode.length * 1.5).toFixed(2)}`);
    }
    out.push('# HELP node_filesystem_avail_bytes Filesystem space available.', '# TYPE node_filesystem_avail_bytes gauge');
    for (const [dev, mp] of [['/dev/sda1', '/'], ['/dev/sda2', '/home'], ['tmpfs', '/run']]) {
      out.push(`node_filesystem_avail_bytes{device="${dev}",fstype="ext4",mountpoint="${mp}"} ${1.2345678e10 + h}`);
    }
    out.push('# TYPE node_network_receive_bytes_total counter');
    for (const dev of ['eth0', 'eth1', 'lo']) out.push(`node_network_receive_bytes_total{device="${dev}"} ${1234567890 + h * 7}`);
    out.push('# TYPE go_gc_duration_seconds summary');
    for (const q of ['0', '0.25', '0.5', '0.75', '1']) out.push(`go_gc_duration_seconds{quantile="${q}"} 3.1e-05`);
    out.push('go_gc_duration_seconds_sum 0.012', 'go_gc_duration_seconds_count 321', 'node_load1 0.52', 'node_load5 0.61', 'node_memory_MemFree_bytes 1.073741824e+09');
  }
  return out.join('\n') + '\n';
}

const text = nodeExporterBody(2000);
const lines = text.split('\n').length - 1;
const now = (): number => 1_700_000_000_000;

// The insert path parses a body in blocks of whole lines the size of a network chunk (see
// common/stream.ts), so rows are short-lived; time that, and one whole-body parse for comparison.
function blocks(body: string, size: number): string[] {
  const out: string[] = [];
  for (let i = 0; i < body.length; ) {
    let end = body.indexOf('\n', Math.min(i + size, body.length - 1));
    end = end < 0 ? body.length : end + 1;
    out.push(Buffer.from(body.slice(i, end)).toString('utf8')); // flat strings, as the stream decodes them
    i = end;
  }
  return out;
}
const parts = blocks(text, 64 * 1024);

function time(label: string, fn: () => number): void {
  for (let i = 0; i < 3; i++) fn(); // warm-up
  const rounds = 10;
  let samples = 0;
  const t0 = process.hrtime.bigint();
  for (let i = 0; i < rounds; i++) samples = fn();
  const sec = Number(process.hrtime.bigint() - t0) / 1e9;
  const perSec = (n: number): string => Math.round((n * rounds) / sec).toLocaleString('en-US');
  console.log(`${label}: ${perSec(samples)} sample lines/s, ${perSec(lines)} lines/s incl. comments, ${((text.length * rounds) / sec / 1e6).toFixed(0)} MB/s`);
}

console.log(`body: ${(text.length / 1e6).toFixed(1)} MB, ${lines} lines`);
time('64 KiB blocks', () => {
  let n = 0;
  for (let b = 0, line = 1; b < parts.length; b++) {
    const r = parse(parts[b]!, { now, firstLine: line });
    n += r.rows.length;
    line += r.lines;
  }
  return n;
});
time('whole body', () => parse(text, { now }).rows.length);
