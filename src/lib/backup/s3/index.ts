export { S3Remote } from './s3-remote.ts';
export * from './s3-options.ts';
