/**
 * LimitExceededError reports that a request would exceed a configured limit. `flag` names the
 * flag that sets the limit, without its leading dash ("search.maxUniqueTimeseries"; a dash given
 * by the thrower is removed), so the HTTP layer can tell the user which knob to turn (422 on reads).
 */
export class LimitExceededError extends Error {
  readonly flag: string;
  readonly limit: number;
  constructor(message: string, flag: string, limit: number, options?: ErrorOptions) {
    super(message, options);
    this.name = 'LimitExceededError';
    this.flag = flag.replace(/^-+/, '');
    this.limit = limit;
  }
}
