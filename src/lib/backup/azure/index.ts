export { AzureRemote } from './azure-remote.ts';
export * from './azure-options.ts';
