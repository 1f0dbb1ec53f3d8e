import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { DEFAULT_TENANT } from '../storageapi/api.ts';
import { openStorage } from './storage.ts';
import { TempDirs, m, never, query } from './testdata/helpers.ts';

const dirs = new TempDirs();
afterEach(() => dirs.cleanup());

const SCRIPT = fileURLToPath(new URL('./testdata/crash-writer.ts', import.meta.url));

/**
 * runAndKill starts the writer, kills it with SIGKILL once `killWhen` says so (given the lines
 * printed so far) and returns the acknowledged batch numbers.
 */
function runAndKill(args: string[], killWhen: (lines: string[]) => number | undefined): Promise<{ acked: number[]; lines: string[] }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [SCRIPT, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
    const lines: string[] = [];
    let stderr = '';
    let rest = '';
    let scheduled = false;
    child.stdout.on('data', (chunk: Buffer) => {
      const parts = (rest + chunk.toString()).split('\n');
      rest = parts.pop()!;
      lines.push(...parts);
      const delay = killWhen(lines);
      if (delay !== undefined && !scheduled) {
        scheduled = true;
        setTimeout(() => child.kill('SIGKILL'), delay);
      }
    });
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    child.on('exit', (code, sig) => {
      if (sig !== 'SIGKILL') reject(new Error(`writer exited with ${code}/${sig} before the kill: ${stderr}`));
      else resolve({ acked: lines.filter((l) => l.startsWith('ack ')).map((l) => Number(l.slice(4))), lines });
    });
  });
}

/** verify opens the directory and checks every acknowledged batch and the part row count. */
async function verify(dir: string, base: number, series: number, acked: number[]): Promise<void> {
  const s = await openStorage({ dataPath: dir, fsyncIntervalMs: -1, backgroundMerges: false, backgroundThreads: 0 });
  try {
    const got = new Map<number, Map<number, number>>();
    for await (const x of s.searchSeries(query([[m('__name__', '=', 'crash')]], base - 1, base + 1e7), never())) {
      const j = Number(x.labels.find((l) => l.name === 's')!.value);
      got.set(j, new Map(Array.from(x.timestamps, (t, i) => [t, x.values[i]!])));
    }
    let missing = 0;
    for (const i of acked) for (let j = 0; j < series; j++) if (got.get(j)?.get(base + i * 1000) !== i * 1000 + j) missing++;
    expect(missing).toBe(0);
    // every sample is counted once: a merge interrupted by the kill never leaves inputs and output both live
    await s.forceFlush();
    const st = s.stats();
    let stored = 0;
    for (const m of got.values()) stored += m.size;
    expect(st.tiers.small.rows + st.tiers.big.rows).toBeGreaterThanOrEqual(stored);
    await s.forceMerge();
    const after = s.stats();
    expect(after.tiers.small.rows + after.tiers.big.rows).toBe(stored);
    expect(await s.seriesCount(DEFAULT_TENANT, never())).toBe(series);
  } finally {
    await s.close();
  }
}

describe('crash safety (SIGKILL)', () => {
  it('keeps every acknowledged batch when killed mid-stream', async () => {
    const series = 300;
    for (const after of [3, 40]) {
      const dir = dirs.make();
      const base = Date.now() - 3_600_000;
      const { acked } = await runAndKill([dir, 'stream', String(base), String(series), '100000'], (lines) =>
        lines.filter((l) => l.startsWith('ack ')).length >= after ? Math.floor(Math.random() * 20) : undefined,
      );
      expect(acked.length).toBeGreaterThanOrEqual(after);
      await verify(dir, base, series, acked);
    }
  });

  it('keeps all data when killed during a forced merge', async () => {
    const series = 2000;
    const batches = 12;
    for (const delay of [0, 15, 60]) {
      const dir = dirs.make();
      const base = Date.now() - 3_600_000;
      const { acked, lines } = await runAndKill([dir, 'merge', String(base), String(series), String(batches)], (ls) => (ls.includes('merging') ? delay : undefined));
      expect(lines).toContain('merging');
      expect(acked).toHaveLength(batches);
      await verify(dir, base, series, acked);
    }
  });
});
