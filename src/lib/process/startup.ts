// Start-up steps the binaries in src/cmd share: a flag value the app rejects ends the process
// like a bad flag (exit 2), a port that cannot be bound like any start-up failure (exit 1).

import type { Runtime } from './runtime.ts';

/**
 * flagValueOrExit returns read(); when it throws (an app rejecting its flags' values), it prints
 * "<binary>: <message>" to stderr and exits 2, as startRuntime does for a bad flag.
 */
export function flagValueOrExit<T>(binary: string, read: () => T): T {
  try {
    return read();
  } catch (err) {
    process.stderr.write(`${binary}: ${(err as Error).message}\n`);
    process.exit(2);
  }
}

/**
 * listenOrExit binds the runtime's HTTP server and returns its "host:port"; when it cannot, it
 * logs the error, runs cleanup (closing what the binary opened before) and exits 1.
 */
export async function listenOrExit(rt: Runtime, cleanup: () => Promise<void>): Promise<string> {
  try {
    return await rt.server.listen();
  } catch (err) {
    rt.logger.fatal({ err }, 'cannot start the http server');
    await cleanup();
    process.exit(1);
  }
}
