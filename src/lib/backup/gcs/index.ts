export { GcsRemote } from './gcs-remote.ts';
export * from './gcs-options.ts';
