// Supervises the Strata processes that `npm run cluster` and `npm run stack` start on loopback:
// each binary runs from src/cmd with the Node that started the script, logs to <root>/<name>.log,
// and is waited for on its /health. When one exits unexpectedly the others are stopped and the end
// of its log is printed. Stopping goes group by group (the caller's order), each process with
// SIGTERM and SIGKILL after 15 s.

import { type ChildProcess, spawn } from 'node:child_process';
import { closeSync, mkdirSync, openSync, readFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';

const REPO = resolve(import.meta.dirname, '..', '..');
export const HOST = '127.0.0.1';

export interface Proc {
  readonly name: string;
  readonly child: ChildProcess;
  readonly log: string;
  readonly health: string;
}

/** LocalProcesses starts binaries under one data root and stops them together. */
export class LocalProcesses {
  readonly root: string;
  readonly #procs: Proc[] = [];
  #stopping = false;
  /** stopOrder: groups of name prefixes stopped one group after another; the rest go last. */
  readonly #stopOrder: readonly string[][];

  constructor(root: string, stopOrder: readonly string[][]) {
    this.root = resolve(root);
    this.#stopOrder = stopOrder;
    mkdirSync(this.root, { recursive: true });
    process.on('SIGINT', () => void this.stopAll(0));
    process.on('SIGTERM', () => void this.stopAll(0));
  }

  /** start runs src/cmd/<binary>.ts with -httpListenAddr on HOST:httpPort and args. */
  start(name: string, binary: string, httpPort: number, args: readonly string[]): Proc {
    const log = join(this.root, `${name}.log`);
    const fd = openSync(log, 'w');
    const child = spawn(process.execPath, [join(REPO, 'src/cmd', `${binary}.ts`), `-httpListenAddr=${HOST}:${httpPort}`, ...args], { stdio: ['ignore', fd, fd] });
    child.once('exit', (code, signal) => {
      closeSync(fd);
      if (this.#stopping) return;
      process.stderr.write(`${name} exited (${code ?? signal}) unexpectedly; the end of ${this.relative(log)}:\n${tail(log)}\n`);
      void this.stopAll(1);
    });
    const p = { name, child, log, health: `http://${HOST}:${httpPort}/health` };
    this.#procs.push(p);
    return p;
  }

  /** healthy waits until p answers /health (60 s at most). */
  async healthy(p: Proc): Promise<void> {
    for (let i = 0; i < 600; i++) {
      if (p.child.exitCode !== null) throw new Error(`${p.name} exited during start`);
      try {
        if ((await fetch(p.health)).ok) return;
      } catch {
        // not listening yet
      }
      await new Promise((r) => setTimeout(r, 100));
    }
    throw new Error(`${p.name} did not answer ${p.health} within 60 s; see ${this.relative(p.log)}`);
  }

  /** failStart reports a failed start with the end of every log and stops everything. */
  async failStart(what: string, err: unknown): Promise<never> {
    process.stderr.write(`cannot start ${what}: ${(err as Error).message}\n`);
    for (const p of this.#procs) process.stderr.write(`--- ${this.relative(p.log)}\n${tail(p.log)}\n`);
    return this.stopAll(1);
  }

  relative(path: string): string {
    return relative(process.cwd(), path) || '.';
  }

  async stopAll(status: number): Promise<never> {
    this.#stopping = true;
    const groups = this.#stopOrder.map((prefixes) => this.#procs.filter((p) => prefixes.some((x) => p.name.startsWith(x))));
    const rest = this.#procs.filter((p) => !groups.some((g) => g.includes(p)));
    for (const group of [...groups, rest]) await Promise.all(group.map(stop));
    process.exit(status);
  }
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

function tail(path: string): string {
  return readFileSync(path, 'utf8').trimEnd().split('\n').slice(-15).join('\n');
}
