// Paths of the shared start/stop scripts of the real CRD API server (../shared/k8s/README.md).
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';

const SHARED_K8S = join(import.meta.dirname, '..', '..', '..', 'shared', 'k8s');
export const START_SCRIPT = join(SHARED_K8S, 'start.sh');
export const STOP_SCRIPT = join(SHARED_K8S, 'stop.sh');
/** STATUS_FILE, inside the work directory, records how start.sh ended: {ok, detail}. */
export const STATUS_FILE = 'strata-start-status.json';

/** runStopScript stops the server of one work directory (SIGTERM, SIGKILL after 10 s). */
export async function runStopScript(workdir: string): Promise<void> {
  await promisify(execFile)('bash', [STOP_SCRIPT, workdir]).catch(() => undefined);
}
