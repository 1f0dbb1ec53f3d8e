// Credentials never reach the log: object fields by path (pino redaction) and credentials
// embedded in message text (URLs with user:password@, authKey=… query args, Authorization values).

const SECRET_KEYS = ['password', 'authorization', 'authKey', 'token', 'bearer_token', 'bearerToken', 'secret', 'clientSecret', 'cookie', 'x-api-key'];

/** REDACT_PATHS are pino redaction paths covering secret keys at the top level and one or two levels down. */
export const REDACT_PATHS: readonly string[] = SECRET_KEYS.flatMap((k) => {
  const key = /^[A-Za-z_$][\w$]*$/.test(k) ? k : `["${k}"]`;
  const sep = key.startsWith('[') ? '' : '.';
  return [key, `*${sep}${key}`, `*.*${sep}${key}`];
});

export const REDACTED = 'secret';

const TEXT_RULES: ReadonlyArray<readonly [RegExp, string]> = [
  [/(\/\/[^/@\s:]+:)[^/@\s]+@/g, `$1${REDACTED}@`],
  [/\b(authKey|password|passwd|token|access_token|secret|p)=([^&\s"']+)/g, `$1=${REDACTED}`],
  [/\b(Basic|Bearer|Token)\s+[A-Za-z0-9._~+/=:-]{4,}/g, `$1 ${REDACTED}`],
];

/** redactText masks credentials inside free text. */
export function redactText(text: string): string {
  let out = text;
  for (const [re, repl] of TEXT_RULES) out = out.replace(re, repl);
  return out;
}

/**
 * redactUrl hides the password and an authKey query arg of a URL for logs and errors; the rest is
 * shown as given (no normalization), and text that is no valid URL is redacted all the same.
 */
export function redactUrl(raw: string): string {
  return raw.replace(/(\/\/[^/:@]*:)[^@/]*@/, `$1${REDACTED}@`).replace(/([?&]authKey=)[^&#]*/gi, `$1${REDACTED}`);
}
