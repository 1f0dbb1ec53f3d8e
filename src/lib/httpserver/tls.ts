import { readFileSync } from 'node:fs';
import type { SecureContextOptions, SecureVersion, Server as TlsServer } from 'node:tls';

/** TlsOptions mirror -tlsCertFile, -tlsKeyFile, -tlsMinVersion and -tlsCipherSuites. */
export interface TlsOptions {
  readonly certFile: string;
  readonly keyFile: string;
  /** minVersion is one of TLS10, TLS11, TLS12, TLS13, or "" for Node's default. */
  readonly minVersion: string;
  /** cipherSuites are IANA names (as Go spells them) or OpenSSL names. */
  readonly cipherSuites: readonly string[];
}

const MIN_VERSIONS: Readonly<Record<string, SecureVersion>> = { TLS10: 'TLSv1', TLS11: 'TLSv1.1', TLS12: 'TLSv1.2', TLS13: 'TLSv1.3' };

/** parseTlsMinVersion maps TLS10…TLS13 to Node's names; throws on anything else. */
export function parseTlsMinVersion(v: string): SecureVersion | undefined {
  if (v === '') return undefined;
  const out = MIN_VERSIONS[v];
  if (out === undefined) throw new Error(`unsupported TLS version "${v}"; use one of ${Object.keys(MIN_VERSIONS).join(', ')}`);
  return out;
}

// IANA names of the TLS 1.2 suites Go supports, mapped to OpenSSL's spelling.
const IANA_TO_OPENSSL: Readonly<Record<string, string>> = {
  TLS_RSA_WITH_AES_128_CBC_SHA: 'AES128-SHA',
  TLS_RSA_WITH_AES_256_CBC_SHA: 'AES256-SHA',
  TLS_RSA_WITH_AES_128_GCM_SHA256: 'AES128-GCM-SHA256',
  TLS_RSA_WITH_AES_256_GCM_SHA384: 'AES256-GCM-SHA384',
  TLS_ECDHE_ECDSA_WITH_AES_128_CBC_SHA: 'ECDHE-ECDSA-AES128-SHA',
  TLS_ECDHE_ECDSA_WITH_AES_256_CBC_SHA: 'ECDHE-ECDSA-AES256-SHA',
  TLS_ECDHE_RSA_WITH_AES_128_CBC_SHA: 'ECDHE-RSA-AES128-SHA',
  TLS_ECDHE_RSA_WITH_AES_256_CBC_SHA: 'ECDHE-RSA-AES256-SHA',
  TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256: 'ECDHE-ECDSA-AES128-GCM-SHA256',
  TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256: 'ECDHE-RSA-AES128-GCM-SHA256',
  TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384: 'ECDHE-ECDSA-AES256-GCM-SHA384',
  TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384: 'ECDHE-RSA-AES256-GCM-SHA384',
  TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305_SHA256: 'ECDHE-RSA-CHACHA20-POLY1305',
  TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256: 'ECDHE-ECDSA-CHACHA20-POLY1305',
};

/** cipherList turns -tlsCipherSuites into an OpenSSL cipher string; throws naming an unknown suite. */
export function cipherList(suites: readonly string[]): string | undefined {
  if (suites.length === 0) return undefined;
  const known = new Set(process.getBuiltinModule('node:tls').getCiphers());
  return suites.map((s) => {
    const name = IANA_TO_OPENSSL[s] ?? s;
    if (!known.has(name.toLowerCase())) throw new Error(`unsupported TLS cipher suite "${s}"`);
    return name;
  }).join(':');
}

/** readTlsContext reads the certificate and key files and builds secure-context options. */
export function readTlsContext(o: TlsOptions): SecureContextOptions & { cert: Buffer; key: Buffer } {
  const cert = readOrThrow(o.certFile, '-tlsCertFile');
  const key = readOrThrow(o.keyFile, '-tlsKeyFile');
  const minVersion = parseTlsMinVersion(o.minVersion);
  const ciphers = cipherList(o.cipherSuites);
  return { cert, key, ...(minVersion === undefined ? {} : { minVersion }), ...(ciphers === undefined ? {} : { ciphers }) };
}

function readOrThrow(path: string, flag: string): Buffer {
  if (path === '') throw new Error(`${flag} must be set when -tls is set`);
  try {
    return readFileSync(path);
  } catch (err) {
    throw new Error(`cannot read ${flag} "${path}": ${(err as Error).message}`, { cause: err });
  }
}

/**
 * watchTlsFiles re-reads the certificate and key once per interval and installs them when their
 * bytes change, so a rotated certificate is served without a restart. A pair that fails to load
 * keeps the previous one and is reported through onError. Returns a stop function.
 */
export function watchTlsFiles(o: TlsOptions, server: TlsServer, onReload: () => void, onError: (err: Error) => void, intervalMs = 1000): () => void {
  let current = readTlsContext(o);
  const timer = setInterval(() => {
    let next;
    try {
      next = readTlsContext(o);
    } catch (err) {
      onError(err as Error);
      return;
    }
    if (next.cert.equals(current.cert) && next.key.equals(current.key)) return;
    try {
      server.setSecureContext(next);
      current = next;
      onReload();
    } catch (err) {
      onError(new Error(`cannot use the new TLS certificate "${o.certFile}" and key "${o.keyFile}": ${(err as Error).message}`, { cause: err }));
    }
  }, intervalMs);
  timer.unref();
  return () => clearInterval(timer);
}
