// Errors of Kubernetes API calls, with the HTTP status and the Status reason the server sent.

/** KubeApiError is a failed API call; `status` is the HTTP code (404, 409, 410, 429, ...). */
export class KubeApiError extends Error {
  readonly status: number;
  readonly reason: string;

  constructor(status: number, reason: string, message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = 'KubeApiError';
    this.status = status;
    this.reason = reason;
  }
}

/** isStatus reports whether err is a KubeApiError with the given HTTP status. */
export function isStatus(err: unknown, status: number): boolean {
  return err instanceof KubeApiError && err.status === status;
}

/** isNotFound reports a 404. */
export const isNotFound = (err: unknown): boolean => isStatus(err, 404);
/** isConflict reports a 409 (stale resourceVersion, already exists, or an apply conflict). */
export const isConflict = (err: unknown): boolean => isStatus(err, 409);
/** isGone reports a 410 (watch resourceVersion too old: relist). */
export const isGone = (err: unknown): boolean => isStatus(err, 410);
/** isTooManyRequests reports a 429 (eviction blocked by a PodDisruptionBudget, or throttling). */
export const isTooManyRequests = (err: unknown): boolean => isStatus(err, 429);
