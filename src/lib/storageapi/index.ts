export * from './api.ts';
export * from './dedup.ts';
export * from './errors.ts';
export * from './matchers.ts';
export * from './stale.ts';
export * from './tenant.ts';
