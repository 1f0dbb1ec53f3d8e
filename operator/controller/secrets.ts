// Reading values of Secrets and ConfigMaps from the cache (and recording the dependency).
import { BUILTIN } from '../k8s/resources.ts';
import type { Reader } from '../reconcile/context.ts';

/** LookupResult mirrors the authproxy Lookups contract. */
export type LookupResult = { found: 'secret-missing' | 'key-missing' } | { found: 'ok'; value: string };

/** secretValue decodes one key of a Secret (data is base64; stringData is never stored). */
export function secretValue(reader: Reader, namespace: string, ref: { name: string; key: string }): LookupResult {
  const secret = reader.get(BUILTIN.secret, { namespace, name: ref.name });
  if (secret === undefined) return { found: 'secret-missing' };
  const data = (secret['data'] as Record<string, string> | undefined) ?? {};
  const b64 = data[ref.key];
  if (b64 === undefined) return { found: 'key-missing' };
  return { found: 'ok', value: Buffer.from(b64, 'base64').toString('utf8') };
}

/** configMapValue reads one key of a ConfigMap (data or binaryData). */
export function configMapValue(reader: Reader, namespace: string, ref: { name: string; key: string }): LookupResult {
  const cm = reader.get(BUILTIN.configMap, { namespace, name: ref.name });
  if (cm === undefined) return { found: 'secret-missing' };
  const data = (cm['data'] as Record<string, string> | undefined) ?? {};
  if (data[ref.key] !== undefined) return { found: 'ok', value: data[ref.key]! };
  const bin = (cm['binaryData'] as Record<string, string> | undefined)?.[ref.key];
  return bin === undefined ? { found: 'key-missing' } : { found: 'ok', value: Buffer.from(bin, 'base64').toString('utf8') };
}
