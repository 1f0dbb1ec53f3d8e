// Protocol servers for the integration tests, all on 127.0.0.1 and free ports: fauxqs (S3),
// azurite (Azure Blob, in memory, a child process) and our GCS fake.

import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { buildApp } from 'fauxqs';

/** RunningServer is a started server. */
export interface RunningServer {
  readonly endpoint: string;
  stop(): Promise<void>;
}

/** startS3Emulator starts fauxqs on 127.0.0.1 and creates `buckets`. */
export async function startS3Emulator(buckets: readonly string[]): Promise<RunningServer> {
  const app = buildApp({ logger: false });
  // startFauxqs() would listen on 0.0.0.0; tests stay on loopback.
  const endpoint = await app.listen({ port: 0, host: '127.0.0.1' });
  for (const b of buckets) {
    const res = await fetch(`${endpoint}/${b}`, { method: 'PUT' });
    if (!res.ok) throw new Error(`cannot create bucket ${b} in fauxqs: HTTP ${res.status}`);
  }
  return { endpoint, stop: () => app.close() };
}

/** AZURITE_ACCOUNT and AZURITE_KEY are azurite's well-known development credentials. */
export const AZURITE_ACCOUNT = 'devstoreaccount1';
export const AZURITE_KEY = 'Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/K1SZFPTOtr/KBHBeksoGMGw==';

/** startAzurite runs azurite-blob in memory and resolves with its blob endpoint. */
export async function startAzurite(): Promise<RunningServer & { connectionString: string }> {
  const main = join(dirname(createRequire(import.meta.url).resolve('azurite/package.json')), 'dist/src/blob/main.js');
  const args = [main, '--blobHost', '127.0.0.1', '--blobPort', '0', '--inMemoryPersistence', '--skipApiVersionCheck', '--disableTelemetry', '--silent', '--extentMemoryLimit', '256'];
  const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const endpoint = await new Promise<string>((resolve, reject) => {
    let out = '';
    const timer = setTimeout(() => reject(new Error(`azurite did not start in 30 s: ${out}`)), 30_000);
    const onData = (d: Buffer) => {
      out += d.toString();
      const m = /listens on (http:\/\/127\.0\.0\.1:\d+)/.exec(out);
      if (m?.[1]) {
        clearTimeout(timer);
        resolve(m[1]);
      }
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    child.once('exit', (code) => reject(new Error(`azurite exited with ${code}: ${out}`)));
  });
  const blobEndpoint = `${endpoint}/${AZURITE_ACCOUNT}`;
  return {
    endpoint: blobEndpoint,
    connectionString: `DefaultEndpointsProtocol=http;AccountName=${AZURITE_ACCOUNT};AccountKey=${AZURITE_KEY};BlobEndpoint=${blobEndpoint};`,
    stop: async () => {
      child.kill('SIGTERM');
      await exited;
    },
  };
}
