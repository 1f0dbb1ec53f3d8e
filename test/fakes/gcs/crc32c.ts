// CRC32C (Castagnoli), as GCS reports it: base64 of the big-endian 32-bit checksum. The SDK
// verifies uploads and downloads against it, so the fake must compute it like the service.

const TABLE = (() => {
  const t = new Uint32Array(256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0x82f63b78 ^ (c >>> 1) : c >>> 1;
    t[n] = c >>> 0;
  }
  return t;
})();

/** crc32c returns the CRC32C of `data` as an unsigned 32-bit integer. */
export function crc32c(data: Uint8Array): number {
  let crc = 0xffffffff;
  for (const b of data) crc = (TABLE[(crc ^ b) & 0xff] as number) ^ (crc >>> 8);
  return (crc ^ 0xffffffff) >>> 0;
}

/** crc32cBase64 returns the checksum in GCS's encoding. */
export function crc32cBase64(data: Uint8Array): string {
  const b = Buffer.alloc(4);
  b.writeUInt32BE(crc32c(data));
  return b.toString('base64');
}
