// Every ingestion route of the tsdb process over HTTP (and the TCP receivers), with the spec's
// examples: each stored row comes back through /api/v1/export with its exact labels, timestamp
// and value. Partial failures, size limits and label limits are checked against a second process.

import { connect } from 'node:net';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { native, remotewrite } from '../../src/lib/protoparser/index.ts';
import { STALE_NAN } from '../../src/lib/storageapi/index.ts';
import { exportSeries, get, post, type Series } from './client.ts';
import { killAll, makeTempDir, removeTempDirs, startTsdb, type Tsdb } from './harness.ts';

// Fixed timestamps (2023-11-14) need a long retention: rows older than it are dropped at write.
const T = 1_700_000_000;
const TMS = T * 1000;

let tsdb: Tsdb;
beforeAll(async () => {
  tsdb = await startTsdb(await makeTempDir('ingest'), [
    '-retentionPeriod=100y',
    '-graphiteListenAddr=127.0.0.1:0', '-opentsdbListenAddr=127.0.0.1:0', '-opentsdbHTTPListenAddr=127.0.0.1:0',
  ]);
});
afterAll(async () => {
  await killAll();
  await removeTempDirs();
});

/** stored exports match[] (all time) as {labels: [[ts, value], …]} for compact, exact comparisons. */
async function stored(match: string): Promise<Record<string, Array<[number, number]>>> {
  const out: Record<string, Array<[number, number]>> = {};
  for (const s of await exportSeries(tsdb.base, match, { start: '0' })) out[render(s)] = s.timestamps.map((t, i) => [t, s.values[i]!]);
  return out;
}

/** render prints a series' labels as `name{a="1",b="2"}`. */
function render(s: Series): string {
  const { __name__: name = '', ...rest } = s.metric;
  return `${name}{${Object.entries(rest).sort(([a], [b]) => (a < b ? -1 : 1)).map(([k, v]) => `${k}=${JSON.stringify(v)}`).join(',')}}`;
}

const send = async (path: string, body: string | Uint8Array, headers: Record<string, string> = {}, base = tsdb.base) => {
  const r = await post(`${base}${path}`, body, headers);
  return { status: r.status, text: r.text };
};

describe('ingestion routes', () => {
  it('Prometheus text: /api/v1/import/prometheus with and without timestamps, also under /prometheus, extra_label, gzip', async () => {
    const before = Date.now();
    expect(await send('/api/v1/import/prometheus', 'temperature{room="kitchen"} 21.5')).toEqual({ status: 204, text: '' });
    const after = Date.now();
    const now = await stored('temperature');
    expect(Object.keys(now)).toEqual(['temperature{room="kitchen"}']);
    const [[ts, v]] = now['temperature{room="kitchen"}']! as [[number, number]];
    expect(v).toBe(21.5);
    expect(ts).toBeGreaterThanOrEqual(before - 1);
    expect(ts).toBeLessThanOrEqual(after + 1);

    const f = async (path: string, body: string | Buffer, headers: Record<string, string>, match: string, want: Record<string, Array<[number, number]>>) => {
      expect(await send(path, body, headers)).toEqual({ status: 204, text: '' });
      expect(await stored(match)).toEqual(want);
    };
    // Explicit ms timestamps, comments and HELP/TYPE lines.
    await f('/api/v1/import/prometheus', `# HELP prom_a test\n# TYPE prom_a gauge\nprom_a{x="1"} 1.5 ${TMS}\nprom_a{x="2"} -3e-7 ${TMS + 1}\n`, {}, 'prom_a',
      { 'prom_a{x="1"}': [[TMS, 1.5]], 'prom_a{x="2"}': [[TMS + 1, -3e-7]] });
    // The same route under /prometheus.
    await f('/prometheus/api/v1/import/prometheus', `prom_b 7 ${TMS}`, {}, 'prom_b', { 'prom_b{}': [[TMS, 7]] });
    // extra_label adds labels and overrides one the row has.
    await f('/api/v1/import/prometheus?extra_label=env=prod&extra_label=x=forced', `prom_c{x="1",y="2"} 3 ${TMS}`, {}, 'prom_c', { 'prom_c{env="prod",x="forced",y="2"}': [[TMS, 3]] });
    // A gzip body.
    await f('/api/v1/import/prometheus', gzipSync(`prom_d{z="gz"} 4 ${TMS}\n`), { 'content-encoding': 'gzip' }, 'prom_d', { 'prom_d{z="gz"}': [[TMS, 4]] });
  });

  it('Prometheus remote write: /api/v1/write and /prometheus/api/v1/write, staleness markers bit-exact', async () => {
    // Set element by element: an array literal would canonicalise the NaN's bits.
    const values = new Float64Array(3);
    values[0] = 0.25;
    values[1] = 1e300;
    values[2] = STALE_NAN;
    const body = remotewrite.encodeWriteRequestSnappy([
      { labels: [{ name: '__name__', value: 'rw_a' }, { name: 'job', value: 'node' }], timestamps: [TMS, TMS + 15_000, TMS + 30_000], values },
      { labels: [{ name: '__name__', value: 'rw_a' }, { name: 'job', value: 'app' }], timestamps: [TMS], values: [-1] },
    ]);
    const headers = { 'content-encoding': 'snappy', 'content-type': 'application/x-protobuf', 'x-prometheus-remote-write-version': '0.1.0' };
    expect(await send('/api/v1/write', body, headers)).toEqual({ status: 204, text: '' });
    const body2 = remotewrite.encodeWriteRequestSnappy([{ labels: [{ name: '__name__', value: 'rw_b' }], timestamps: [TMS], values: [2] }]);
    expect(await send('/prometheus/api/v1/write', body2, headers)).toEqual({ status: 204, text: '' });
    const got = await stored('{__name__=~"rw_.+"}');
    expect(got).toEqual({ 'rw_a{job="app"}': [[TMS, -1]], 'rw_a{job="node"}': [[TMS, 0.25], [TMS + 15_000, 1e300], [TMS + 30_000, NaN]], 'rw_b{}': [[TMS, 2]] });
    // JSON has no NaN payloads; the native export keeps the marker's bits.
    const nat = native.parse((await get(`${tsdb.base}/api/v1/export/native?match[]=rw_a{job="node"}&start=0`)).body);
    expect(nat).toHaveLength(1);
    expect(new BigUint64Array(nat[0]!.values.buffer.slice(0))[2]).toBe(0x7ff0000000000002n);
  });

  it('Influx line protocol: /write, /influx/write, /influx/api/v2/write, /api/v2/write with db/bucket and precision', async () => {
    const f = async (path: string, line: string, want: Record<string, Array<[number, number]>>, match: string) => {
      expect(await send(path, line)).toEqual({ status: 204, text: '' });
      expect(await stored(match)).toEqual(want);
    };
    await f('/write?db=telegraf&precision=s', `cpu,host=a usage_user=1.5,usage_system=2i ${T}`, {
      'cpu_usage_system{db="telegraf",host="a"}': [[TMS, 2]], 'cpu_usage_user{db="telegraf",host="a"}': [[TMS, 1.5]],
    }, '{__name__=~"cpu_.+"}');
    await f('/influx/write?db=mydb&precision=ms', `mem,host=b free=10 ${TMS}`, { 'mem_free{db="mydb",host="b"}': [[TMS, 10]] }, 'mem_free');
    await f('/influx/api/v2/write?bucket=b2&precision=ns', `disk,dev=sda used=0.5 ${TMS}000000`, { 'disk_used{db="b2",dev="sda"}': [[TMS, 0.5]] }, 'disk_used');
    // Without precision the timestamp is in nanoseconds; a db tag in the line wins over the arg.
    await f('/api/v2/write?bucket=ignored', `net,db=own rx=3 ${TMS}000000`, { 'net_rx{db="own"}': [[TMS, 3]] }, 'net_rx');
    // What Telegraf asks first.
    expect((await get(`${tsdb.base}/ping`)).status).toBe(204);
    expect((await get(`${tsdb.base}/query?q=SHOW%20DATABASES`)).status).toBe(200);
    // A bad precision is the client's error.
    const bad = await send('/write?precision=weeks', `x v=1 ${T}`);
    expect(bad.status).toBe(400);
    expect(bad.text).toContain('precision');
  });

  it('JSON lines: /api/v1/import and /prometheus/api/v1/import, NaN and Inf values', async () => {
    const lines = [
      JSON.stringify({ metric: { __name__: 'jl_a', job: 'x' }, values: [1, 2.5, 'Inf'], timestamps: [TMS, TMS + 1000, TMS + 2000] }),
      JSON.stringify({ metric: { __name__: 'jl_a', job: 'y' }, values: ['NaN'], timestamps: [TMS] }),
    ].join('\n');
    expect(await send('/api/v1/import', lines, { 'content-type': 'application/json' })).toEqual({ status: 204, text: '' });
    expect(await send('/prometheus/api/v1/import', JSON.stringify({ metric: { __name__: 'jl_b' }, values: [-0.5], timestamps: [TMS] }))).toEqual({ status: 204, text: '' });
    expect(await stored('{__name__=~"jl_.+"}')).toEqual({
      'jl_a{job="x"}': [[TMS, 1], [TMS + 1000, 2.5], [TMS + 2000, Infinity]], 'jl_a{job="y"}': [[TMS, NaN]], 'jl_b{}': [[TMS, -0.5]],
    });
  });

  it('CSV: /api/v1/import/csv with the spec example format, time columns, and a missing format', async () => {
    expect(await send('/api/v1/import/csv?format=2:metric:ask,3:metric:bid,1:label:ticker,4:label:market,5:time:unix_s', `GOOG,1.23,4.56,NYSE,${T}\nMSFT,3.21,1.67,NASDAQ,${T + 60}\n`)).toEqual({ status: 204, text: '' });
    expect(await stored('{__name__=~"ask|bid"}')).toEqual({
      'ask{market="NASDAQ",ticker="MSFT"}': [[TMS + 60_000, 3.21]], 'ask{market="NYSE",ticker="GOOG"}': [[TMS, 1.23]],
      'bid{market="NASDAQ",ticker="MSFT"}': [[TMS + 60_000, 1.67]], 'bid{market="NYSE",ticker="GOOG"}': [[TMS, 4.56]],
    });
    expect(await send('/prometheus/api/v1/import/csv?format=1:label:city,2:metric:temp,3:time:rfc3339', 'Paris,12.5,2023-11-14T22:13:20Z\n')).toEqual({ status: 204, text: '' });
    expect(await stored('temp')).toEqual({ 'temp{city="Paris"}': [[TMS, 12.5]] });
    const missing = await send('/api/v1/import/csv', 'a,1\n');
    expect(missing.status).toBe(400);
    expect(missing.text).toContain('missing "format" arg');
  });

  it('native: /api/v1/export/native output imports into another tsdb and exports byte for byte the same', async () => {
    const lines: string[] = [];
    for (let s = 0; s < 30; s++) {
      const timestamps = Array.from({ length: 500 }, (_, i) => TMS + i * 15_000);
      lines.push(JSON.stringify({ metric: { __name__: 'nat_src', s: String(s), zone: s % 2 === 0 ? 'even' : 'odd' }, values: timestamps.map((_, i) => (s % 3 === 0 ? i : Math.sin(i + s) * 1e3)), timestamps }));
    }
    expect(await send('/api/v1/import', lines.join('\n'))).toEqual({ status: 204, text: '' });
    const exported = await get(`${tsdb.base}/api/v1/export/native?match[]=nat_src&start=0`);
    expect(exported.status).toBe(200);
    expect(exported.headers.get('content-type')).toBe('application/octet-stream');
    const other = await startTsdb(await makeTempDir('ingest-native'), ['-retentionPeriod=100y']);
    expect(await send('/api/v1/import/native', exported.body, {}, other.base)).toEqual({ status: 204, text: '' });
    const again = await get(`${other.base}/api/v1/export/native?match[]=nat_src&start=0`);
    expect(Buffer.compare(again.body, exported.body)).toBe(0);
    expect(await exportSeries(other.base, 'nat_src', { start: '0' })).toEqual(await exportSeries(tsdb.base, 'nat_src', { start: '0' }));
    // Under /prometheus, and a corrupt stream is a 400 that keeps what came before the damage.
    expect(await send('/prometheus/api/v1/import/native', exported.body, {}, other.base)).toEqual({ status: 204, text: '' });
    const cut = await send('/api/v1/import/native', exported.body.subarray(0, exported.body.length - 3), {}, other.base);
    expect(cut.status).toBe(400);
    await other.stop();
  });

  it('agent format: /agentfmt/api/v1/series with the spec example, and /agentfmt/api/v1/validate', async () => {
    const body = { series: [{ host: 'test.example.com', interval: 20, metric: 'system.load.1', points: [[T, 0.7], [T + 20, 0.9]], tags: ['environment:test', 'role'], type: 'rate' }] };
    expect(await send('/agentfmt/api/v1/series', JSON.stringify(body), { 'content-type': 'application/json' })).toEqual({ status: 204, text: '' });
    expect(await stored('{__name__="system.load.1"}')).toEqual({ 'system.load.1{environment="test",host="test.example.com",role="no_label_value"}': [[TMS, 0.7], [TMS + 20_000, 0.9]] });
    const validate = await get(`${tsdb.base}/agentfmt/api/v1/validate`);
    expect(validate.status).toBe(200);
    expect(JSON.parse(validate.text)).toEqual({ valid: true });
  });

  it('OpenTSDB HTTP /api/put on -opentsdbHTTPListenAddr', async () => {
    const base = `http://${tsdb.receivers.opentsdbHTTP}`;
    const points = [{ metric: 'sys.cpu.nice', timestamp: T, value: 18, tags: { host: 'web01', dc: 'lga' } }, { metric: 'sys.cpu.nice', timestamp: T + 1, value: 9, tags: { host: 'web02', dc: 'lga' } }];
    expect(await send('/api/put', JSON.stringify(points), {}, base)).toEqual({ status: 204, text: '' });
    expect(await stored('{__name__="sys.cpu.nice"}')).toEqual({ 'sys.cpu.nice{dc="lga",host="web01"}': [[TMS, 18]], 'sys.cpu.nice{dc="lga",host="web02"}': [[TMS + 1000, 9]] });
    // The spec's shape: metric and value only, stamped with the time of arrival.
    const before = Date.now();
    expect(await send('/api/put', JSON.stringify([{ metric: 'sys.one', value: 1 }]), {}, base)).toEqual({ status: 204, text: '' });
    const [one] = await exportSeries(tsdb.base, '{__name__="sys.one"}', { start: '0' });
    expect(one!.values).toEqual([1]);
    expect(one!.timestamps[0]).toBeGreaterThanOrEqual(before - 1);
    expect(one!.timestamps[0]).toBeLessThanOrEqual(Date.now() + 1);
    expect((await get(`${base}/api/put`)).status).toBe(404);
    const bad = await send('/api/put', '{not json', {}, base);
    expect(bad.status).toBe(400);
  });

  it('OpenTSDB telnet and Graphite plaintext over TCP', async () => {
    // A bad line in the middle of a connection is skipped; the lines after it are stored.
    await sendTcp(tsdb.receivers.opentsdb!, `put sys.cpu.user ${T} 42.5 host=web01 cpu=0\nversion\nput sys.cpu.user ${T + 10} 43 host=web01 cpu=0\n`);
    await sendTcp(tsdb.receivers.graphite!, `foo.bar.baz;tag1=value1;tag2=value2 123 ${T}\nfoo.bar.bad abc ${T}\nfoo.bar.qux 0.5 ${T}\n`);
    await expect.poll(() => stored('{__name__=~"sys.cpu.user|foo.bar.+"}'), { timeout: 5_000 }).toEqual({
      'foo.bar.baz{tag1="value1",tag2="value2"}': [[TMS, 123]], 'foo.bar.qux{}': [[TMS, 0.5]], 'sys.cpu.user{cpu="0",host="web01"}': [[TMS, 42.5], [TMS + 10_000, 43]],
    });
  });

  it('stores the good lines of a body with bad ones and answers 400 with the count and the first bad line', async () => {
    const f = async (path: string, body: string, wantText: RegExp, match: string, want: Record<string, Array<[number, number]>>) => {
      const r = await send(path, body);
      expect(r.status).toBe(400);
      expect(r.text).toMatch(wantText);
      expect(await stored(match)).toEqual(want);
    };
    await f('/api/v1/import/prometheus', `bad_a 1 ${TMS}\nbad_a{x="1" 2\nbad_a{x="2"} 3 ${TMS}\nbad_a{x="3"} nope\n`, /^2 lines could not be parsed; first: line 2: /, 'bad_a',
      { 'bad_a{}': [[TMS, 1]], 'bad_a{x="2"}': [[TMS, 3]] });
    await f('/write?precision=s', `bad_b v=1 ${T}\nbad_b v= ${T}\n`, /^1 line could not be parsed; first: line 2: /, 'bad_b_v', { 'bad_b_v{}': [[TMS, 1]] });
    await f('/api/v1/import', `{"metric":{"__name__":"bad_c"},"values":[1],"timestamps":[${TMS}]}\n{"metric":{}}\n`, /^1 line could not be parsed; first: line 2: /, 'bad_c', { 'bad_c{}': [[TMS, 1]] });
    // Timestamps storage cannot hold are the client's error too, and do not stop later batches.
    const later = Array.from({ length: 12_000 }, (_, i) => `bad_d{i="${i}"} 1 ${TMS + i}`).join('\n');
    const r = await send('/api/v1/import/prometheus', `bad_d -1 -5\n${later}\n`);
    expect(r).toEqual({ status: 400, text: '1 row was rejected; first: timestamp -5 of bad_d{} is not a time between 1970 and 9999 in milliseconds' });
    expect(await exportSeries(tsdb.base, 'bad_d', { start: '0' })).toHaveLength(12_000);
    const empty = await send('/api/v1/import/prometheus?extra_label=__name__=', `bad_e 1 ${TMS}`);
    expect(empty.status).toBe(400);
    expect(empty.text).toContain('no labels left');
  });
});

describe('ingestion limits', () => {
  let small: Tsdb;
  beforeAll(async () => {
    small = await startTsdb(await makeTempDir('ingest-limits'), ['-retentionPeriod=100y', '-maxInsertRequestSize=16KiB', '-maxLabelsPerTimeseries=4', '-maxLabelValueLen=32']);
  });

  it('answers 413 for a body over -maxInsertRequestSize, as sent and after decompression', async () => {
    const big = `${'big_a{pad="x"} 1\n'.repeat(2000)}`;
    const r = await send('/api/v1/import/prometheus', big, {}, small.base);
    expect(r.status).toBe(413);
    expect(r.text).toContain('-maxInsertRequestSize');
    // Small when compressed, too big once decoded.
    const z = gzipSync(big);
    expect(z.length).toBeLessThan(16 * 1024);
    const rz = await send('/api/v1/import/prometheus', z, { 'content-encoding': 'gzip' }, small.base);
    expect(rz.status).toBe(413);
    expect(rz.text).toContain('-maxInsertRequestSize');
    expect(await exportSeries(small.base, 'big_a', { start: '0' })).toEqual([]);
  });

  it('rejects series over -maxLabelsPerTimeseries and -maxLabelValueLen with a 400 naming the flag, storing the rest', async () => {
    const f = async (body: string, flag: string, match: string, want: string[]) => {
      const r = await send('/api/v1/import/prometheus', body, {}, small.base);
      expect(r.status).toBe(400);
      expect(r.text).toContain(`-${flag}=`);
      expect(r.text).not.toContain(`--${flag}`);
      expect((await exportSeries(small.base, match, { start: '0' })).map(render)).toEqual(want);
    };
    await f(`lim_a{a="1",b="2",c="3",d="4"} 1 ${TMS}\nlim_a{a="1"} 2 ${TMS}\n`, 'maxLabelsPerTimeseries', 'lim_a', ['lim_a{a="1"}']);
    await f(`lim_b{a="${'v'.repeat(33)}"} 1 ${TMS}\nlim_b{a="${'v'.repeat(32)}"} 2 ${TMS}\n`, 'maxLabelValueLen', 'lim_b', [`lim_b{a="${'v'.repeat(32)}"}`]);
    const rw = remotewrite.encodeWriteRequestSnappy([{ labels: [{ name: '__name__', value: 'lim_c' }, ...'abcd'.split('').map((n) => ({ name: n, value: n }))], timestamps: [TMS], values: [1] }]);
    const r = await send('/api/v1/write', rw, { 'content-encoding': 'snappy' }, small.base);
    expect(r.status).toBe(400);
    expect(r.text).toContain('-maxLabelsPerTimeseries');
  });
});

/** sendTcp writes text to a line receiver and closes the connection. */
function sendTcp(addr: string, text: string): Promise<void> {
  const [host, port] = [addr.slice(0, addr.lastIndexOf(':')), Number(addr.slice(addr.lastIndexOf(':') + 1))];
  return new Promise((resolve, reject) => {
    const s = connect(port, host, () => s.end(text));
    s.on('error', reject);
    s.on('close', () => resolve());
  });
}
