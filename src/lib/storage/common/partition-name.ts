// Monthly partitions are named YYYY_MM by the UTC month of their samples.

/** PARTITION_NAME_RE matches partition directory names. */
export const PARTITION_NAME_RE = /^(\d{4})_(0[1-9]|1[0-2])$/;

/** partitionNameOf returns the partition holding timestamp ts (ms). */
export function partitionNameOf(ts: number): string {
  const d = new Date(ts);
  return `${String(d.getUTCFullYear()).padStart(4, '0')}_${String(d.getUTCMonth() + 1).padStart(2, '0')}`;
}

/** partitionRange returns the first and last millisecond of a partition's month. */
export function partitionRange(name: string): { minTs: number; maxTs: number } {
  const m = PARTITION_NAME_RE.exec(name);
  if (!m) throw new Error(`invalid partition name "${name}": want YYYY_MM`);
  const y = Number(m[1]);
  const mon = Number(m[2]) - 1;
  return { minTs: Date.UTC(y, mon, 1), maxTs: Date.UTC(y, mon + 1, 1) - 1 };
}

/** nextPartitionStart returns the first millisecond of the month after the one holding ts. */
export function nextPartitionStart(ts: number): number {
  const d = new Date(ts);
  return Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 1);
}
