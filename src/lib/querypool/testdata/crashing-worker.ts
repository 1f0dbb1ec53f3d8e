// A query worker for tests: the real one, except that a rollup of function "crash" (no real
// function has that name) kills the thread, as a bug or an out-of-memory end would.
import { parentPort } from 'node:worker_threads';

parentPort!.on('message', (m: { spec: { func: string } }) => {
  if (m.spec.func === 'crash') process.exit(7);
});
await import('../worker.ts');
