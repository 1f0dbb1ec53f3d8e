// Query worker: a worker thread that evaluates rollup batches (batch.ts) for the pool (pool.ts).
// It keeps nothing between tasks but one block decoder's scratch buffers.
import { parentPort } from 'node:worker_threads';
import { bufferOf, evalBatch, newDecoder } from './batch.ts';
import { BatchError } from './errors.ts';
import type { FromWorker, ToWorker } from './protocol.ts';

const port = parentPort;
if (port === null) throw new Error('querypool/worker.ts must run as a worker thread');
const dec = newDecoder();

port.on('message', (m: ToWorker) => {
  let reply: FromWorker;
  let transfer: ArrayBuffer[] = [];
  try {
    const result = evalBatch(m.spec, m.batch, dec, m.out);
    const input = bufferOf(m.batch);
    reply = { id: m.id, ok: true, result, input };
    transfer = [bufferOf(result), input];
  } catch (err) {
    reply = { id: m.id, ok: false, series: err instanceof BatchError ? err.series : -1, message: (err as Error).message };
  }
  port.postMessage(reply, transfer);
});
