/** ConfigError: the auth config is invalid; the message names the key and the user at fault. */
export class ConfigError extends Error {
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = 'ConfigError';
  }
}
