// backupmanager: scheduled backups of a TSDB data directory, its HTTP API (default :8300), and
// the CLI commands `backup list|lock|unlock` and `restore [create|get|delete]` (SPEC C).
import { initBackupManager, runCommandFromFlags, serveOptionsFromFlags, type ServeOptions } from '../app/backupmanager/index.ts';
import { FlagError } from '../lib/flags/index.ts';
import { serveUntilSignal, startRuntime } from '../lib/process/index.ts';

const rt = startRuntime({ binary: 'backupmanager', metricsPrefix: 'backupmanager', defaultListenAddr: ':8300' });
const terminal = process.stderr.isTTY ? process.stderr : undefined;

if (rt.positionals.length > 0) {
  // A CLI command: no HTTP server, no schedule.
  const code = await runCommandFromFlags(rt.positionals, rt.logger, terminal);
  rt.stopPushMetrics();
  process.exit(code);
}

let options: ServeOptions;
try {
  options = serveOptionsFromFlags();
} catch (err) {
  if (!(err instanceof FlagError)) throw err;
  process.stderr.write(`backupmanager: ${err.message}\n`);
  process.exit(2);
}
const bm = await initBackupManager(options, { logger: rt.logger.child({ component: 'backupmanager' }), terminal });
rt.server.register(bm.routes);
const addr = await rt.server.listen();
rt.logger.info(`listening for http requests on http://${addr}`);
bm.startSchedule();
await serveUntilSignal(rt, [bm]);
