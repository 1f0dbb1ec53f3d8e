export * from './api.ts';
export * from './errors.ts';
export * from './stale.ts';
export * from './tenant.ts';
