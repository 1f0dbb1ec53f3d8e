// npm run stack: the whole platform on loopback, with data and logs under ./strata-data/stack:
// - the cluster of `npm run cluster` (2 × tsdb-storage, tsdb-insert, tsdb-select, -replicationFactor=2);
// - a single-node tsdb on :8429 holding the platform's own metrics: every process pushes its
//   /metrics there every 5 s (-pushmetrics.url, built into every binary, so no scraper to install);
// - the JWT gateway on :8431 in cluster mode, with rate limits measured from that tsdb;
// - the auth proxy on :8427 with two Basic-auth users (reads and writes of tenant 0);
// - a backup manager per storage node (:8300, :8301) writing to ./strata-data/backups/<node>.
// It makes an RSA key pair for the gateway (kept, so tokens stay valid across restarts), prints
// every URL, a sample token of tenant 1 with its public key, and curl lines that write and read
// through the gateway. Ctrl-C stops the front ends first and the storage nodes last.

import { generateKeyPairSync, createPrivateKey, createPublicKey, randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { SignJWT } from 'jose';
import { clusterSummary, INSERT_HTTP, SELECT_HTTP, STORAGE, startCluster } from './local/cluster.ts';
import { HOST, LocalProcesses } from './local/processes.ts';

const MONITOR_HTTP = 8429;
const GATEWAY_HTTP = 8431;
const AUTHPROXY_HTTP = 8427;
const BACKUP_HTTP = [8300, 8301];
const TENANT = { account_id: 1, project_id: 0 };

const procs = new LocalProcesses('strata-data/stack', [['gateway', 'authproxy'], ['backup'], ['insert', 'select'], ['storage']]);
const backups = resolve('strata-data', 'backups');
const monitor = `http://${HOST}:${MONITOR_HTTP}`;
const pushArgs = (name: string) => [
  `-pushmetrics.url=${monitor}/api/v1/import/prometheus`, '-pushmetrics.interval=5s',
  `-pushmetrics.extraLabel=job="strata-stack"`, `-pushmetrics.extraLabel=instance="${name}"`,
];

const keys = gatewayKeys(join(procs.root, 'gateway'));
const rateLimits = join(procs.root, 'gateway', 'ratelimit.yml');
// Generous limits that a curl session never reaches; lower one and send SIGHUP to the gateway to see a 429.
writeFileSync(rateLimits, `limits:
  - type: rows_inserted
    value: 1000000
    resolution: minute
  - type: queries
    value: 600
    resolution: minute
    account_id: ${TENANT.account_id}
    project_id: ${TENANT.project_id}
`);
const proxyPassword = secret(join(procs.root, 'authproxy', 'password'));
const proxyConfig = join(procs.root, 'authproxy', 'auth.yml');
writeFileSync(proxyConfig, `users:
  - username: reader
    password: ${proxyPassword}
    url_prefix: http://${HOST}:${SELECT_HTTP}/select/0/prometheus
  - username: writer
    password: ${proxyPassword}
    url_prefix: http://${HOST}:${INSERT_HTTP}/insert/0/prometheus
`);

try {
  const tsdb = procs.start('monitor', 'tsdb', MONITOR_HTTP, [`-storageDataPath=${join(procs.root, 'monitor')}`]);
  await procs.healthy(tsdb);
  await startCluster(procs, pushArgs);
  const fronts = [
    procs.start('gateway', 'gateway', GATEWAY_HTTP, [
      '-eula', '-enable.auth', '-clusterMode', `-read.url=http://${HOST}:${SELECT_HTTP}`, `-write.url=http://${HOST}:${INSERT_HTTP}`,
      `-auth.publicKeyFiles=${keys.publicPath}`, '-enable.rateLimit', `-ratelimit.config=${rateLimits}`, `-datasource.url=${monitor}`,
      ...pushArgs('gateway'),
    ]),
    procs.start('authproxy', 'authproxy', AUTHPROXY_HTTP, [`-auth.config=${proxyConfig}`, ...pushArgs('authproxy')]),
    ...STORAGE.map((s, i) => procs.start(`backup-${s.name}`, 'backupmanager', BACKUP_HTTP[i]!, [
      `-storageDataPath=${join(procs.root, s.name)}`, `-snapshot.createURL=http://${HOST}:${s.http}/snapshot/create`,
      `-dst=fs://${join(backups, s.name)}`, ...pushArgs(`backup-${s.name}`),
    ])),
  ];
  await Promise.all(fronts.map((p) => procs.healthy(p)));
} catch (err) {
  await procs.failStart('the stack', err);
}

const token = await new SignJWT({ svc_access: { tenant_id: TENANT, mode: 0 } })
  .setProtectedHeader({ alg: 'RS256' })
  .setExpirationTime('7d')
  .sign(keys.privateKey);
const gw = `http://localhost:${GATEWAY_HTTP}`;
process.stdout.write(`Strata stack on loopback; data and logs in ${procs.relative(procs.root)}/, backups in ${procs.relative(backups)}/
${clusterSummary()}  monitoring     http://localhost:${MONITOR_HTTP}  (single-node tsdb: every process pushes its metrics here every 5 s)
  gateway        ${gw}  (JWT; rate limits in ${procs.relative(rateLimits)}, usage read from the monitoring tsdb)
  auth proxy     http://localhost:${AUTHPROXY_HTTP}  (Basic auth: reader or writer, password in ${procs.relative(join(procs.root, 'authproxy', 'password'))}: ${proxyPassword})
  backups        ${STORAGE.map((s, i) => `http://localhost:${BACKUP_HTTP[i]}/api/v1/backups (${s.name})`).join(', ')}

Gateway public key (${procs.relative(keys.publicPath)}):
${keys.publicPem.trimEnd()}

A token for tenant ${TENANT.account_id}:${TENANT.project_id}, read and write, valid 7 days:
  TOKEN=${token}

Write and read through the gateway:
  curl -H "Authorization: Bearer $TOKEN" -d 'temperature{room="kitchen"} 21.5' ${gw}/api/v1/import/prometheus
  curl -H "Authorization: Bearer $TOKEN" '${gw}/api/v1/query?query=temperature'
Through the auth proxy (tenant 0):
  curl -u writer:${proxyPassword} -d 'temperature{room="hall"} 19' http://localhost:${AUTHPROXY_HTTP}/api/v1/import/prometheus
  curl -u reader:${proxyPassword} 'http://localhost:${AUTHPROXY_HTTP}/api/v1/query?query=temperature'
The platform's own metrics:
  curl 'http://localhost:${MONITOR_HTTP}/api/v1/query?query=sum(rate(tsdb_tenant_inserted_rows_total[1m]))by(accountID)'
Ctrl-C stops the stack.
`);

/** gatewayKeys loads the stack's RSA key pair from dir, making it on the first start. */
function gatewayKeys(dir: string) {
  mkdirSync(dir, { recursive: true });
  const privatePath = join(dir, 'jwt-private.pem');
  const publicPath = join(dir, 'jwt-public.pem');
  if (!existsSync(privatePath) || !existsSync(publicPath)) {
    const pair = generateKeyPairSync('rsa', { modulusLength: 2048 });
    writeFileSync(privatePath, pair.privateKey.export({ type: 'pkcs8', format: 'pem' }), { mode: 0o600 });
    writeFileSync(publicPath, pair.publicKey.export({ type: 'spki', format: 'pem' }));
  }
  const privateKey = createPrivateKey(readFileSync(privatePath));
  const publicPem = createPublicKey(privateKey).export({ type: 'spki', format: 'pem' }) as string;
  return { privateKey, publicPath, publicPem };
}

/** secret reads a generated password kept at path, making it on the first start. */
function secret(path: string): string {
  mkdirSync(resolve(path, '..'), { recursive: true });
  if (!existsSync(path)) writeFileSync(path, randomBytes(12).toString('base64url'), { mode: 0o600 });
  return readFileSync(path, 'utf8').trim();
}
