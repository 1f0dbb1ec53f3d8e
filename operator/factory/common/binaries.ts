// Commands and default ports of the Strata binaries (ARCHITECTURE §1). The command paths match
// the image layout in images/*/Dockerfile (sources under /app); test/images checks that.

/** APP_ROOT is where the images place the repository sources. */
export const APP_ROOT = '/app';

/** command returns the exec-form command that starts a binary from src/cmd. */
export function command(binary: 'tsdb' | 'tsdb-storage' | 'tsdb-select' | 'tsdb-insert' | 'gateway' | 'authproxy' | 'backupmanager' | 'operator'): string[] {
  return ['node', `${APP_ROOT}/src/cmd/${binary}.ts`];
}

/** PORTS are the default listen ports of the binaries (ARCHITECTURE §1). */
export const PORTS = {
  tsdb: 8428,
  storageHttp: 8482,
  storageInsert: 8400,
  storageSelect: 8401,
  insert: 8480,
  select: 8481,
  gateway: 8431,
  authproxy: 8427,
} as const;

/** DATA_PATH is where storage containers mount their data volume (-storageDataPath). */
export const DATA_PATH = '/data';
/** DATA_VOLUME names the data volume (claim template or emptyDir). */
export const DATA_VOLUME = 'data';
