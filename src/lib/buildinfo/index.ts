export * from './build-info.ts';
