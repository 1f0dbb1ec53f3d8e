import { splitArrayValue } from './array.ts';

/** FlagKind names how a flag's text is parsed; it is printed in -help. */
export type FlagKind = 'string' | 'bool' | 'int' | 'float' | 'duration' | 'size' | 'array' | 'value';

/** FlagDefinition describes one flag; create them through the helpers in define.ts. */
export interface FlagDefinition<T> {
  readonly name: string;
  readonly kind: FlagKind;
  readonly help: string;
  readonly defaultValue: T;
  /** secret flags print as "secret" in /flags, -help defaults and logs. */
  readonly secret: boolean;
  /** required flags must be given (on the command line or, with -envflag.enable, in the environment). */
  readonly required: boolean;
  /** parse turns one occurrence's text into a value; array flags append. Throws on bad text. */
  readonly parse: (text: string, previous: T, isFirstOccurrence: boolean) => T;
  readonly format: (value: T) => string;
}

/** Flag is a handle to one registered flag; `value` is the parsed value or the default. */
export class Flag<T> {
  readonly definition: FlagDefinition<T>;
  #value: T;
  #isSet = false;

  constructor(definition: FlagDefinition<T>) {
    this.definition = definition;
    this.#value = definition.defaultValue;
  }

  get name(): string {
    return this.definition.name;
  }

  get value(): T {
    return this.#value;
  }

  /** isSet reports whether the flag was given explicitly (command line, environment or a test override). */
  get isSet(): boolean {
    return this.#isSet;
  }

  /** apply parses one occurrence of the flag. Throws an Error naming the flag on bad text. */
  apply(text: string): void {
    try {
      this.#value = this.definition.parse(text, this.#value, !this.#isSet);
    } catch (err) {
      const reason = err instanceof Error ? err.message : String(err);
      throw new FlagError(`invalid value ${JSON.stringify(text)} for flag -${this.name}: ${reason}`, { cause: err });
    }
    this.#isSet = true;
  }

  /** set replaces the value directly (tests and default overrides); it marks the flag as set when `markSet`. */
  set(value: T, markSet: boolean): void {
    this.#value = value;
    this.#isSet = markSet;
  }

  /** displayValue is the value as shown to humans, with secrets masked. */
  displayValue(): string {
    if (this.definition.secret && this.definition.format(this.#value) !== '') return 'secret';
    return this.definition.format(this.#value);
  }
}

/** FlagError is a command-line problem; the process prints its message and exits with status 2. */
export class FlagError extends Error {
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = 'FlagError';
  }
}

// Names that always hold credentials, whatever the declaring code said.
const SECRET_NAME = /password|authkey|token|secret|credential/i;
const PATH_NAME = /file(path)?$|path$/i;

/** isSecretFlagName reports whether a flag name alone marks it as a credential. */
export function isSecretFlagName(name: string): boolean {
  return SECRET_NAME.test(name) && !PATH_NAME.test(name);
}

/**
 * FlagSet is a registry of flags. A process has one (the default set in define.ts); tests may
 * build their own.
 */
export class FlagSet {
  readonly #flags = new Map<string, Flag<unknown>>();

  /** register adds a flag; registering a name twice is a programming error and throws. */
  register<T>(definition: FlagDefinition<T>): Flag<T> {
    if (this.#flags.has(definition.name)) {
      throw new Error(`flag -${definition.name} is defined twice`);
    }
    const flag = new Flag(definition);
    this.#flags.set(definition.name, flag as Flag<unknown>);
    return flag;
  }

  lookup(name: string): Flag<unknown> | undefined {
    return this.#flags.get(name);
  }

  /** all returns every flag sorted by name. */
  all(): Flag<unknown>[] {
    return [...this.#flags.values()].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  }

  /** overrideDefault changes a flag's default before parsing (a binary's own listen address, say). */
  overrideDefault(name: string, text: string): void {
    const flag = this.mustLookup(name);
    const fresh = new Flag(flag.definition);
    fresh.apply(text);
    flag.set(fresh.value, false);
  }

  mustLookup(name: string): Flag<unknown> {
    const flag = this.#flags.get(name);
    if (flag === undefined) throw new FlagError(`unknown flag -${name}; run with -help to list the flags`);
    return flag;
  }

  /** writeFlags renders every flag as `-name="value"` lines, secrets masked (the /flags page). */
  writeFlags(): string {
    return this.all()
      .map((f) => `-${f.name}=${JSON.stringify(f.displayValue())}\n`)
      .join('');
  }

  /** setFlags lists flags given explicitly, secrets masked, for the startup log line. */
  setFlags(): Record<string, string> {
    const out: Record<string, string> = {};
    for (const f of this.all()) if (f.isSet) out[f.name] = f.displayValue();
    return out;
  }

  /** help renders -help output: every flag with its kind, default and help text. */
  help(binary: string): string {
    const lines = [`Usage of ${binary}:`];
    for (const f of this.all()) {
      const d = f.definition;
      const def = d.secret ? '' : d.format(d.defaultValue);
      lines.push(`  -${d.name} ${d.kind}${d.required ? ' (required)' : ''}`);
      for (const line of d.help.split('\n')) lines.push(`    \t${line}`);
      if (def !== '' && d.kind !== 'bool') lines.push(`    \t(default ${JSON.stringify(def)})`);
    }
    return lines.join('\n') + '\n';
  }

  /**
   * withOverrides sets flags from values (already typed) and returns a function restoring the
   * previous values; tests use it so one test's flags never leak into the next.
   */
  withOverrides(values: Record<string, unknown>): () => void {
    const saved: Array<[Flag<unknown>, unknown, boolean]> = [];
    for (const [name, value] of Object.entries(values)) {
      const flag = this.mustLookup(name);
      saved.push([flag, flag.value, flag.isSet]);
      flag.set(value, true);
    }
    return () => {
      for (const [flag, value, isSet] of saved.reverse()) flag.set(value, isSet);
    };
  }
}

/** arrayParse makes array flags append each occurrence's comma-separated elements. */
export function arrayParse<T>(parseOne: (s: string) => T): (text: string, prev: readonly T[], first: boolean) => T[] {
  return (text, prev, first) => [...(first ? [] : prev), ...splitArrayValue(text).map(parseOne)];
}
