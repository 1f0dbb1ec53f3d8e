// The logging surface the operator needs; src/lib/logger's pino logger satisfies it.

/** Logger logs structured messages; context goes in fields (or child bindings), not in text. */
export interface Logger {
  debug(fields: Record<string, unknown>, msg: string): void;
  info(fields: Record<string, unknown>, msg: string): void;
  warn(fields: Record<string, unknown>, msg: string): void;
  error(fields: Record<string, unknown>, msg: string): void;
  child(bindings: Record<string, unknown>): Logger;
}

/** MemoryLogger keeps entries in memory (tests and tools); it is a real logger, not a no-op. */
export class MemoryLogger implements Logger {
  readonly entries: { level: string; msg: string; fields: Record<string, unknown> }[];
  readonly #bindings: Record<string, unknown>;

  constructor(entries: MemoryLogger['entries'] = [], bindings: Record<string, unknown> = {}) {
    this.entries = entries;
    this.#bindings = bindings;
  }

  #log(level: string, fields: Record<string, unknown>, msg: string): void {
    this.entries.push({ level, msg, fields: { ...this.#bindings, ...fields } });
  }

  debug(fields: Record<string, unknown>, msg: string): void {
    this.#log('debug', fields, msg);
  }
  info(fields: Record<string, unknown>, msg: string): void {
    this.#log('info', fields, msg);
  }
  warn(fields: Record<string, unknown>, msg: string): void {
    this.#log('warn', fields, msg);
  }
  error(fields: Record<string, unknown>, msg: string): void {
    this.#log('error', fields, msg);
  }
  child(bindings: Record<string, unknown>): Logger {
    return new MemoryLogger(this.entries, { ...this.#bindings, ...bindings });
  }
}
