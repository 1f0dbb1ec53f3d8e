// Sizes with decimal (KB, MB, GB, TB) and binary (KiB, MiB, GiB, TiB) suffixes, as bytes.

const SUFFIX_BYTES: Readonly<Record<string, number>> = {
  '': 1,
  B: 1,
  KB: 1e3,
  MB: 1e6,
  GB: 1e9,
  TB: 1e12,
  KiB: 1024,
  MiB: 1024 ** 2,
  GiB: 1024 ** 3,
  TiB: 1024 ** 4,
};

const SIZE = /^(\d+(?:\.\d*)?|\.\d+)(?:e(\d+))?\s*([KMGT]i?B|B)?$/;

/** parseBytes parses "64MiB", "1.5GB", "1024" or "1e6" into a whole number of bytes. */
export function parseBytes(text: string): number {
  const m = SIZE.exec(text.trim());
  if (m === null) {
    throw new Error(`cannot parse size "${text}": expected a number with an optional suffix KB, MB, GB, TB, KiB, MiB, GiB or TiB`);
  }
  const mantissa = Number(m[1]) * (m[2] !== undefined ? 10 ** Number(m[2]) : 1);
  const n = Math.round(mantissa * SUFFIX_BYTES[m[3] ?? '']!);
  if (!Number.isSafeInteger(n)) throw new Error(`cannot parse size "${text}": out of range`);
  return n;
}

const BINARY_UNITS = ['B', 'KiB', 'MiB', 'GiB', 'TiB', 'PiB'] as const;

/** formatBytes prints bytes with the largest binary unit that keeps the number ≥ 1 ("311.4 KiB"). */
export function formatBytes(n: number, separator = ' '): string {
  let v = n;
  let i = 0;
  while (Math.abs(v) >= 1024 && i < BINARY_UNITS.length - 1) {
    v /= 1024;
    i++;
  }
  const digits = i === 0 ? String(v) : String(Math.round(v * 10) / 10);
  return `${digits}${separator}${BINARY_UNITS[i]}`;
}
