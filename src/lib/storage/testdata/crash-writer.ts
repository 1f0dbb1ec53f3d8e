// Child process for the crash tests (crash.test.ts): writes batches into a storage and prints
// "ack <i>" after each addRows resolved, or prepares parts and runs a forced merge. The parent
// kills it with SIGKILL at some point and checks what survived.
//
// usage: node crash-writer.ts <dataPath> <mode: stream|merge> <baseTs> <series> <batches>

import { openStorage } from '../storage.ts';

const [dataPath, mode, baseArg, seriesArg, batchesArg] = process.argv.slice(2);
const base = Number(baseArg);
const series = Number(seriesArg);
const batches = Number(batchesArg);

function batch(i: number) {
  return Array.from({ length: series }, (_, j) => ({
    labels: [
      { name: '__name__', value: 'crash' },
      { name: 's', value: String(j) },
    ],
    timestamp: base + i * 1000,
    value: i * 1000 + j,
    rawKey: `crash{s="${j}"}`,
  }));
}

const tenant = { accountID: 0, projectID: 0 };

if (mode === 'stream') {
  // Frequent flushes and background merges, so kills land in every phase.
  const s = await openStorage({ dataPath: dataPath!, fsyncIntervalMs: -1, flushIntervalMs: 20, maxBufferedRows: series * 3 });
  for (let i = 0; i < batches; i++) {
    await s.addRows(tenant, batch(i));
    process.stdout.write(`ack ${i}\n`);
  }
  process.stdout.write('done\n');
  await new Promise(() => {}); // wait to be killed
} else if (mode === 'merge') {
  const s = await openStorage({ dataPath: dataPath!, fsyncIntervalMs: -1, backgroundMerges: false, flushIntervalMs: 3_600_000 });
  for (let i = 0; i < batches; i++) {
    await s.addRows(tenant, batch(i));
    await s.forceFlush();
    process.stdout.write(`ack ${i}\n`);
  }
  process.stdout.write('merging\n');
  for (;;) await s.forceMerge();
} else {
  throw new Error(`unknown mode ${String(mode)}`);
}
