export { AzureRemote, createAzureContainer } from './azure-remote.ts';
export * from './azure-options.ts';
