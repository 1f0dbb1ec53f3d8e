// A parse worker for tests: the real one, except that a chunk containing "CRASH" kills the thread.
import { parentPort } from 'node:worker_threads';

parentPort!.on('message', (m: { t: string; data?: Uint8Array }) => {
  if (m.t === 'chunk' && Buffer.from(m.data!).includes('CRASH')) process.exit(3);
});
await import('../parse-worker.ts');
