// The CLI side of the binary, wired from flags: API commands call -apiURL; `restore` restores
// locally and stops cleanly on SIGTERM/SIGINT (a retry then finishes the restore).

import type { Logger } from '../../lib/logger/index.ts';
import { ApiClient } from './api-client.ts';
import { runCli } from './cli.ts';
import { apiClientFlags, restoreCommandFlags } from './flags.ts';
import type { Terminal } from './progress-report.ts';
import { remoteOpener } from './remote-access.ts';
import { runRestoreCommand } from './restore-command.ts';

/** runCommandFromFlags runs the CLI command in `args` with the process's flags and returns the exit status. */
export async function runCommandFromFlags(args: readonly string[], logger: Logger, terminal: Terminal | undefined): Promise<number> {
  return runCli(args, {
    logger,
    apiClient: () => new ApiClient(apiClientFlags()),
    restore: async () => {
      const f = restoreCommandFlags();
      const ac = new AbortController();
      const onSignal = (signal: NodeJS.Signals) => {
        logger.warn(`received ${signal}; stopping the restore (running restore again finishes it; the storage refuses to start meanwhile)`);
        ac.abort(new Error(`interrupted by ${signal}`));
      };
      process.once('SIGTERM', onSignal);
      process.once('SIGINT', onSignal);
      try {
        const res = await runRestoreCommand({
          dataDir: f.storageDataPath, openRemote: remoteOpener(f.objectStore), concurrency: f.concurrency, maxBytesPerSecond: f.maxBytesPerSecond,
          logger, now: Date.now, signal: ac.signal, terminal,
        });
        return res !== undefined;
      } finally {
        process.removeListener('SIGTERM', onSignal);
        process.removeListener('SIGINT', onSignal);
      }
    },
    out: (text) => void process.stdout.write(text),
    usage: (text) => void process.stderr.write(`backupmanager: ${text}\n`),
  });
}
