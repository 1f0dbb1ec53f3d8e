// backupmanager: scheduled backups of a TSDB data directory, its HTTP API (default :8300), and
// the CLI commands `backup list|lock|unlock` and `restore [create|get|delete]` (SPEC C).
// The rest of the code is imported after the project's own imports are set to resolve directly
// (src/lib/process/fast-resolve.ts, as in tsdb.ts).
import { resolveSourcesDirectly } from '../lib/process/fast-resolve.ts';

resolveSourcesDirectly();

const { initBackupManager, runCommandFromFlags, serveOptionsFromFlags } = await import('../app/backupmanager/index.ts');
const { FlagError } = await import('../lib/flags/index.ts');
const { serveUntilSignal, startRuntime } = await import('../lib/process/index.ts');
type ServeOptions = import('../app/backupmanager/index.ts').ServeOptions;

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
