export { startGcsFake, type GcsFake, type GcsFakeOptions } from './server.ts';
export { crc32c, crc32cBase64 } from './crc32c.ts';
