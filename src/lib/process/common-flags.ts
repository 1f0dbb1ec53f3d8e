import { boolFlag } from '../flags/index.ts';

// Common flags with no better home. -memory.* live in src/lib/memory, -internString* in
// src/lib/intern, -pushmetrics.* in src/lib/metrics, HTTP/TLS flags in src/lib/httpserver,
// -logger* in src/lib/logger, -envflag.*/-version/-help in src/lib/flags.

const eula = boolFlag('eula', false, 'Confirms an enterprise license and accepts its terms; the gateway and enterprise features (auth proxy ip_filters) need it');
boolFlag('fs.disableMmap', false, 'Accepted for compatibility. Strata never memory-maps data files: it always reads them with positional reads (pread), so this flag changes nothing');

/** eulaAccepted reports -eula. */
export function eulaAccepted(): boolean {
  return eula.value;
}

/** EULA_REQUIRED_MESSAGE is what a binary that needs -eula prints before exiting. */
export function eulaRequiredMessage(binary: string): string {
  return `${binary} is an enterprise component: start it with -eula to confirm an enterprise license and accept its terms`;
}
