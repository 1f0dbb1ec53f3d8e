// collectd 5.12 (Debian package "collectd-core") sends its values to tsdb's Graphite receiver
// (-graphiteListenAddr) with the write_graphite plugin. Values the test dispatches through
// collectd's unixsock plugin must come back with their exact names, timestamps and values; the
// load plugin's own series must appear too.

import { writeFile } from 'node:fs/promises';
import { connect } from 'node:net';
import { join } from 'node:path';
import { afterAll, afterEach, expect, it } from 'vitest';
import { exportSeries } from './client.ts';
import { killAll, makeTempDir, removeTempDirs, requireBinary, startBinary, startTsdb } from './harness.ts';

afterEach(killAll);
afterAll(removeTempDirs);

const HOST = 'strata-interop';

function collectdConfig(dir: string, graphite: string): string {
  const [host, port] = graphite.split(':');
  return `Hostname "${HOST}"
FQDNLookup false
BaseDir "${dir}"
PIDFile "${dir}/collectd.pid"
PluginDir "/usr/lib/collectd"
TypesDB "/usr/share/collectd/types.db"
Interval 1

LoadPlugin logfile
<Plugin logfile>
  LogLevel info
  File STDOUT
</Plugin>
LoadPlugin load
LoadPlugin unixsock
<Plugin unixsock>
  SocketFile "${dir}/collectd.sock"
  SocketPerms "0600"
</Plugin>
<LoadPlugin write_graphite>
  FlushInterval 1
</LoadPlugin>
<Plugin write_graphite>
  <Node "strata">
    Host "${host}"
    Port "${port}"
    Protocol "tcp"
    LogSendErrors true
    Prefix "collectd."
    StoreRates true
    AlwaysAppendDS false
    EscapeCharacter "_"
  </Node>
</Plugin>
`;
}

/** command sends one line to collectd's unixsock and resolves with its status line. */
function command(socketPath: string, line: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const s = connect(socketPath);
    let answer = '';
    s.on('error', reject);
    s.on('data', (d: Buffer) => {
      answer += d.toString();
      const nl = answer.indexOf('\n');
      if (nl >= 0) {
        s.end();
        resolve(answer.slice(0, nl));
      }
    });
    s.write(`${line}\n`);
  });
}

it('stores what collectd sends to the Graphite receiver', { timeout: 60_000 }, async () => {
  const bin = requireBinary('collectd', 'collectd-core');
  const dir = await makeTempDir('collectd');
  const tsdb = await startTsdb(join(dir, 'tsdb'), ['-graphiteListenAddr=127.0.0.1:0']);
  const graphite = tsdb.receivers.graphite;
  if (graphite === undefined) throw new Error(`tsdb did not log its graphite receiver address:\n${tsdb.proc.output()}`);
  const config = join(dir, 'collectd.conf');
  await writeFile(config, collectdConfig(dir, graphite));
  const collectd = startBinary(bin, ['-f', '-C', config], dir);
  await collectd.waitForOutput(/Initialization complete, entering read-loop/, 30_000);
  // unixsock binds its socket in a thread of its own, which can come after that line on a busy machine.
  const socket = join(dir, 'collectd.sock');
  await expect.poll(() => command(socket, 'LISTVAL').then(() => true, () => false), { timeout: 20_000, interval: 100 }).toBe(true);

  // Values with known timestamps and values, dispatched through collectd like any plugin's.
  const t = Math.floor(Date.now() / 1000) - 10;
  const sent: Array<[number, number]> = [[t, 42.5], [t + 1, -0.125], [t + 2, 1e21]];
  for (const [sec, v] of sent) {
    expect(await command(socket, `PUTVAL "${HOST}/interop-answer/gauge-deep" interval=1 ${sec}:${v}`)).toMatch(/^0 Success/);
  }
  expect(await command(socket, 'FLUSH plugin=write_graphite')).toMatch(/^0 Done/);

  // Graphite names hold dots, so they are selected by __name__.
  const name = `collectd.${HOST}.interop-answer.gauge-deep`;
  const match = `{__name__=${JSON.stringify(name)}}`;
  await expect.poll(async () => (await exportSeries(tsdb.base, match, { start: '0' }))[0]?.timestamps.length ?? 0, { timeout: 20_000, interval: 250 }).toBe(sent.length);
  const [series] = await exportSeries(tsdb.base, match, { start: '0' });
  expect(series!.metric).toEqual({ __name__: name });
  expect(series!.timestamps.map((ms, i) => [ms / 1000, series!.values[i]])).toEqual(sent);

  // The load plugin's series (one per data source of the "load" type), with recent timestamps.
  const loadNames = ['shortterm', 'midterm', 'longterm'].map((ds) => `collectd.${HOST}.load.load.${ds}`);
  await expect.poll(async () => (await exportSeries(tsdb.base, `{__name__=~"collectd\\\\.${HOST}\\\\.load\\\\..+"}`, { start: '0' })).map((s) => s.metric.__name__).sort(), { timeout: 20_000, interval: 250 })
    .toEqual([...loadNames].sort());
  for (const s of await exportSeries(tsdb.base, `{__name__=~"collectd\\\\.${HOST}\\\\.load\\\\..+"}`, { start: '0' })) {
    expect(s.values.every((v) => v >= 0 && Number.isFinite(v))).toBe(true);
    expect(Math.abs(s.timestamps.at(-1)! - Date.now())).toBeLessThan(60_000);
  }
  expect(collectd.output()).not.toMatch(/write_graphite.*(error|failed)/i);
  collectd.kill('SIGTERM');
  expect(await collectd.exited).toBe(0);
});
