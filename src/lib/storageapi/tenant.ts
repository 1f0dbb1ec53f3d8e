import type { Tenant } from './api.ts';

/**
 * checkTenant throws for a tenant that is not two uint32s. Storage implementations call it on
 * every request; the network client calls it before encoding (a wire u32 would wrap silently).
 */
export function checkTenant(t: Tenant): void {
  const ok = (v: number) => Number.isInteger(v) && v >= 0 && v <= 0xffffffff;
  if (!t || !ok(t.accountID) || !ok(t.projectID)) {
    throw new Error(`invalid tenant ${JSON.stringify(t)}: accountID and projectID must be integers in 0..4294967295`);
  }
}
