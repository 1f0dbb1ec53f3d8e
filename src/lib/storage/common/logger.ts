/**
 * StorageLogger is the minimal logger the engine writes to (pino's shape: an object with the
 * context, then a message). The default is silent.
 */
export interface StorageLogger {
  info(obj: object | string, msg?: string): void;
  warn(obj: object | string, msg?: string): void;
  error(obj: object | string, msg?: string): void;
}

/** silentLogger drops everything. */
export const silentLogger: StorageLogger = {
  info() {},
  warn() {},
  error() {},
};
