// Log timestamps: ISO 8601 with milliseconds, in UTC ("…Z") or in a named zone ("…+02:00").

/** checkTimezone throws when zone is neither "UTC", "Local" nor an IANA zone this runtime knows. */
export function checkTimezone(zone: string): void {
  if (zone === 'UTC' || zone === 'Local') return;
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: zone });
  } catch {
    throw new Error(`unknown time zone "${zone}"; use UTC, Local or an IANA zone such as Europe/Berlin`);
  }
}

/** createTimeFormatter returns a function printing epoch milliseconds in zone. */
export function createTimeFormatter(zone: string): (ms: number) => string {
  if (zone === 'UTC') return (ms) => new Date(ms).toISOString();
  const dtf = new Intl.DateTimeFormat('en-US', {
    timeZone: zone === 'Local' ? undefined : zone,
    hourCycle: 'h23',
    year: 'numeric', month: 'numeric', day: 'numeric', hour: 'numeric', minute: 'numeric', second: 'numeric',
  });
  return (ms) => {
    const offsetMin = offsetMinutes(dtf, ms);
    const local = new Date(ms + offsetMin * 60_000).toISOString().slice(0, -1);
    const sign = offsetMin < 0 ? '-' : '+';
    const abs = Math.abs(offsetMin);
    return `${local}${sign}${pad2(Math.floor(abs / 60))}:${pad2(abs % 60)}`;
  };
}

function offsetMinutes(dtf: Intl.DateTimeFormat, ms: number): number {
  const p: Record<string, number> = {};
  for (const part of dtf.formatToParts(ms)) if (part.type !== 'literal') p[part.type] = Number(part.value);
  const wall = Date.UTC(p.year!, p.month! - 1, p.day!, p.hour!, p.minute!, p.second!);
  return Math.round((wall - (ms - (((ms % 1000) + 1000) % 1000))) / 60_000);
}

function pad2(n: number): string {
  return n < 10 ? `0${n}` : String(n);
}
