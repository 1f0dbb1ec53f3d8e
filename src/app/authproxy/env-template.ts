import { ConfigError } from './config-error.ts';

const PLACEHOLDER = /%\{([^{}]*)\}/g;

/**
 * substituteEnv replaces each `%{NAME}` in text by env[NAME]. Throws ConfigError naming every
 * placeholder whose variable is not defined (an empty value counts as defined). Pure.
 */
export function substituteEnv(text: string, env: Readonly<Record<string, string | undefined>>): string {
  const missing = new Set<string>();
  const out = text.replace(PLACEHOLDER, (_m, name: string) => {
    const v = env[name];
    if (v === undefined) {
      missing.add(name);
      return '';
    }
    return v;
  });
  if (missing.size > 0) {
    throw new ConfigError(`undefined environment variable${missing.size > 1 ? 's' : ''} ${[...missing].map((n) => `%{${n}}`).join(', ')} in auth config`);
  }
  return out;
}
