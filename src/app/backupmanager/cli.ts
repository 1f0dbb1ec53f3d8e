// Runs one CLI command: the API commands through ApiClient, `restore` locally.

import type { Logger } from '../../lib/logger/index.ts';
import type { ApiClient } from './api-client.ts';
import { CLI_USAGE, CliUsageError, parseCliCommand, type CliCommand } from './cli-command.ts';

/** CliDeps are built lazily: an API command needs no object store, `restore` needs no API. */
export interface CliDeps {
  readonly logger: Logger;
  readonly apiClient: () => ApiClient;
  /** restore runs the restore command; it resolves false when there was nothing to restore. */
  readonly restore: () => Promise<boolean>;
  /** out writes to stdout (command results only; logs go to the logger). */
  readonly out: (text: string) => void;
  /** usage writes one usage error to stderr. */
  readonly usage: (text: string) => void;
}

/** runCli runs the command in `args` and returns the exit status: 0 done, 1 failed, 2 usage error. */
export async function runCli(args: readonly string[], deps: CliDeps): Promise<number> {
  let cmd: CliCommand;
  try {
    cmd = parseCliCommand(args);
  } catch (err) {
    if (!(err instanceof CliUsageError)) throw err;
    deps.usage(`${err.message}\n${CLI_USAGE}`);
    return 2;
  }
  try {
    await execute(cmd, deps);
    return 0;
  } catch (err) {
    deps.logger.error({ err }, `cannot run "${args.join(' ')}"`);
    return 1;
  }
}

const json = (v: unknown) => `${JSON.stringify(v, null, 2)}\n`;

async function execute(cmd: CliCommand, deps: CliDeps): Promise<void> {
  switch (cmd.kind) {
    case 'backup-list':
      deps.out(json(await deps.apiClient().listBackups()));
      return;
    case 'backup-lock':
      deps.out(json(await deps.apiClient().setLocked(cmd.name, cmd.locked)));
      return;
    case 'restore-create':
      deps.out(json(await deps.apiClient().createRestoreMark(cmd.backup)));
      return;
    case 'restore-get': {
      const mark = await deps.apiClient().getRestoreMark();
      if (mark === undefined) deps.logger.info('no restore mark');
      else deps.out(json(mark));
      return;
    }
    case 'restore-delete':
      await deps.apiClient().deleteRestoreMark();
      deps.logger.info('the restore mark is deleted (if there was one)');
      return;
    case 'restore':
      await deps.restore();
      return;
  }
}
