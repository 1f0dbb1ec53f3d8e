/**
 * LimitExceededError reports that a request would exceed a configured limit. `flag` names the
 * flag that sets the limit so the HTTP layer can tell the user which knob to turn (422 on reads).
 */
export class LimitExceededError extends Error {
  readonly flag: string;
  readonly limit: number;
  constructor(message: string, flag: string, limit: number, options?: ErrorOptions) {
    super(message, options);
    this.name = 'LimitExceededError';
    this.flag = flag;
    this.limit = limit;
  }
}
