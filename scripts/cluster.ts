// npm run cluster: a local TSDB cluster on loopback — two tsdb-storage nodes, one tsdb-insert and
// one tsdb-select, both with -replicationFactor=2 — with data under ./strata-data/cluster and each
// process's log in ./strata-data/cluster/<name>.log. Prints the URLs and curl lines to write and
// query. Ctrl-C stops everything (each process shuts down gracefully); SIGTERM or SIGINT sent to
// this script alone stops insert and select first, then the storage nodes.

import { type ChildProcess, spawn } from 'node:child_process';
import { closeSync, mkdirSync, openSync, readFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';

const repo = resolve(import.meta.dirname, '..');
const root = resolve('strata-data', 'cluster');
const HOST = '127.0.0.1';
const STORAGE = [
  { name: 'storage-0', http: 8482, insert: 8400, select: 8401 },
  { name: 'storage-1', http: 8483, insert: 8402, select: 8403 },
];
const INSERT_HTTP = 8480;
const SELECT_HTTP = 8481;
const RF = 2;

interface Proc {
  readonly name: string;
  readonly child: ChildProcess;
  readonly log: string;
  readonly health: string;
}

const procs: Proc[] = [];
let stopping = false;

function start(name: string, binary: string, args: string[], httpPort: number): Proc {
  const log = join(root, `${name}.log`);
  const fd = openSync(log, 'w');
  const child = spawn(process.execPath, [join(repo, 'src/cmd', `${binary}.ts`), `-httpListenAddr=${HOST}:${httpPort}`, ...args], { stdio: ['ignore', fd, fd] });
  child.once('exit', (code, signal) => {
    closeSync(fd);
    if (stopping) return;
    process.stderr.write(`${name} exited (${code ?? signal}) unexpectedly; the end of ${relative(process.cwd(), log)}:\n${tail(log)}\n`);
    void stopAll(1);
  });
  const p = { name, child, log, health: `http://${HOST}:${httpPort}/health` };
  procs.push(p);
  return p;
}

function tail(path: string): string {
  return readFileSync(path, 'utf8').trimEnd().split('\n').slice(-15).join('\n');
}

async function healthy(p: Proc): Promise<void> {
  for (let i = 0; i < 600; i++) {
    if (p.child.exitCode !== null) throw new Error(`${p.name} exited during start`);
    try {
      if ((await fetch(p.health)).ok) return;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`${p.name} did not answer ${p.health} within 60 s; see ${p.log}`);
}

async function stopAll(status: number): Promise<never> {
  stopping = true;
  // Insert and select first, so no write is acknowledged by a storage node that is going away.
  for (const group of [procs.filter((p) => !p.name.startsWith('storage')), procs.filter((p) => p.name.startsWith('storage'))]) {
    await Promise.all(group.map((p) => stop(p)));
  }
  process.exit(status);
}

function stop(p: Proc): Promise<void> {
  if (p.child.exitCode !== null || p.child.signalCode !== null) return Promise.resolve();
  return new Promise((resolveStop) => {
    const killer = setTimeout(() => p.child.kill('SIGKILL'), 15_000);
    p.child.once('exit', () => {
      clearTimeout(killer);
      resolveStop();
    });
    p.child.kill('SIGTERM');
  });
}

process.on('SIGINT', () => void stopAll(0));
process.on('SIGTERM', () => void stopAll(0));

mkdirSync(root, { recursive: true });
try {
  const storages = STORAGE.map((s) => start(s.name, 'tsdb-storage', [
    `-storageDataPath=${join(root, s.name)}`, `-insertAddr=${HOST}:${s.insert}`, `-selectAddr=${HOST}:${s.select}`,
  ], s.http));
  await Promise.all(storages.map(healthy));
  const insert = start('insert', 'tsdb-insert', [`-storageNode=${STORAGE.map((s) => `${HOST}:${s.insert}`).join(',')}`, `-replicationFactor=${RF}`], INSERT_HTTP);
  const select = start('select', 'tsdb-select', [`-storageNode=${STORAGE.map((s) => `${HOST}:${s.select}`).join(',')}`, `-replicationFactor=${RF}`], SELECT_HTTP);
  await Promise.all([healthy(insert), healthy(select)]);
} catch (err) {
  process.stderr.write(`cannot start the cluster: ${(err as Error).message}\n`);
  for (const p of procs) process.stderr.write(`--- ${relative(process.cwd(), p.log)}\n${tail(p.log)}\n`);
  await stopAll(1);
}

const ins = `http://localhost:${INSERT_HTTP}`;
const sel = `http://localhost:${SELECT_HTTP}`;
process.stdout.write(`Strata cluster on loopback, -replicationFactor=${RF}; data and logs in ${relative(process.cwd(), root)}/
  storage nodes  ${STORAGE.map((s) => `http://localhost:${s.http}`).join(', ')} (insert RPC ${STORAGE.map((s) => s.insert).join(', ')}, select RPC ${STORAGE.map((s) => s.select).join(', ')})
  tsdb-insert    ${ins}/insert/<accountID[:projectID]>/…
  tsdb-select    ${sel}/select/<accountID[:projectID]>/prometheus/…  (Grafana: a Prometheus data source at ${sel}/select/0/prometheus)

Write (tenant 0):
  curl -d 'temperature{room="kitchen"} 21.5' ${ins}/insert/0/prometheus/api/v1/import/prometheus
  curl -d 'cpu,host=a usage=42' '${ins}/insert/0/influx/write'
Query:
  curl '${sel}/select/0/prometheus/api/v1/query?query=temperature'
  curl '${sel}/select/0/prometheus/api/v1/series?match[]=temperature'
  curl '${sel}/admin/tenants'
Ctrl-C stops the cluster.
`);
