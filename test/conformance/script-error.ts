/** ScriptError reports a malformed promqltest script line (the message names the line). */
export class ScriptError extends Error {
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = 'ScriptError';
  }
}
