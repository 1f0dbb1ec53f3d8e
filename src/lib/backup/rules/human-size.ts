const UNITS = ['KiB', 'MiB', 'GiB', 'TiB', 'PiB', 'EiB'];

/**
 * formatHumanSize renders a byte count with a binary-unit suffix and one decimal, as in backup
 * records: `512 B`, `311.4 KiB`, `1.0 GiB`.
 */
export function formatHumanSize(bytes: number): string {
  if (!Number.isFinite(bytes) || bytes < 0) throw new RangeError(`size must be a non-negative number, got ${bytes}`);
  if (bytes < 1024) return `${Math.floor(bytes)} B`;
  let v = bytes / 1024;
  let i = 0;
  // 1023.96 KiB would print as "1024.0 KiB"; move to the next unit instead.
  while (v >= 1023.95 && i < UNITS.length - 1) {
    v /= 1024;
    i++;
  }
  return `${v.toFixed(1)} ${UNITS[i]}`;
}
