// A small Dockerfile parser for linting: instructions with their arguments, line continuations,
// comments and parser directives; exec-form (JSON array) arguments are decoded.

/** DockerfileParseError is the only error parseDockerfile throws. */
export class DockerfileParseError extends Error {
  readonly line: number;
  constructor(message: string, line: number) {
    super(`line ${line}: ${message}`);
    this.name = 'DockerfileParseError';
    this.line = line;
  }
}

/** Instruction is one Dockerfile instruction. `flags` holds leading --name=value options. */
export interface Instruction {
  readonly keyword: string;
  readonly line: number;
  readonly flags: Readonly<Record<string, string>>;
  /** args is the text after keyword and flags. */
  readonly args: string;
  /** exec is the decoded JSON array for exec-form instructions (RUN, CMD, ENTRYPOINT...). */
  readonly exec: readonly string[] | undefined;
}

const KEYWORDS = new Set(['FROM', 'RUN', 'CMD', 'LABEL', 'MAINTAINER', 'EXPOSE', 'ENV', 'ADD', 'COPY', 'ENTRYPOINT', 'VOLUME', 'USER', 'WORKDIR', 'ARG', 'ONBUILD', 'STOPSIGNAL', 'HEALTHCHECK', 'SHELL']);

function splitFlags(rest: string, line: number): { flags: Record<string, string>; args: string } {
  const flags: Record<string, string> = {};
  let text = rest;
  for (;;) {
    const m = /^--([a-z][a-z-]*)(?:=(\S*))?\s*/.exec(text);
    if (m === null) break;
    flags[m[1]!] = m[2] ?? 'true';
    text = text.slice(m[0].length);
  }
  return { flags, args: text.trim() };
}

function decodeExec(args: string, line: number): string[] | undefined {
  if (!args.startsWith('[')) return undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(args);
  } catch {
    // Docker treats an invalid JSON array as shell form; the linter flags that separately.
    return undefined;
  }
  if (!Array.isArray(parsed) || !parsed.every((p) => typeof p === 'string')) throw new DockerfileParseError('exec form must be a JSON array of strings', line);
  return parsed;
}

/** parseDockerfile returns the instructions of a Dockerfile; throws DockerfileParseError. */
export function parseDockerfile(text: string): Instruction[] {
  const lines = text.split(/\r?\n/);
  const out: Instruction[] = [];
  let buf = '';
  let start = 0;
  for (let i = 0; i < lines.length; i++) {
    const raw = lines[i]!;
    const trimmed = raw.trim();
    if (buf === '' && (trimmed === '' || trimmed.startsWith('#'))) continue;
    if (buf !== '' && trimmed.startsWith('#')) continue;
    if (buf === '') start = i + 1;
    if (trimmed.endsWith('\\')) {
      buf += `${trimmed.slice(0, -1)} `;
      continue;
    }
    buf += trimmed;
    out.push(parseInstruction(buf, start));
    buf = '';
  }
  if (buf.trim() !== '') out.push(parseInstruction(buf, start));
  return out;
}

function parseInstruction(text: string, line: number): Instruction {
  const m = /^(\S+)\s*([\s\S]*)$/.exec(text.trim());
  if (m === null) throw new DockerfileParseError('empty instruction', line);
  const keyword = m[1]!.toUpperCase();
  if (!KEYWORDS.has(keyword)) throw new DockerfileParseError(`unknown instruction ${JSON.stringify(m[1])}`, line);
  const { flags, args } = splitFlags(m[2]!, line);
  return { keyword, line, flags, args, exec: decodeExec(args, line) };
}

/** Stage is one FROM section. */
export interface Stage {
  readonly name: string | undefined;
  readonly base: string;
  readonly instructions: readonly Instruction[];
}

/** stages splits instructions at FROM; instructions before the first FROM are the global ARGs. */
export function stages(instructions: readonly Instruction[]): { globalArgs: Instruction[]; stages: Stage[] } {
  const globalArgs: Instruction[] = [];
  const result: { name: string | undefined; base: string; instructions: Instruction[] }[] = [];
  for (const ins of instructions) {
    if (ins.keyword === 'FROM') {
      const m = /^(\S+)(?:\s+AS\s+(\S+))?$/i.exec(ins.args);
      if (m === null) throw new DockerfileParseError(`bad FROM ${JSON.stringify(ins.args)}`, ins.line);
      result.push({ name: m[2], base: m[1]!, instructions: [] });
    } else if (result.length === 0) {
      if (ins.keyword !== 'ARG') throw new DockerfileParseError(`${ins.keyword} before the first FROM`, ins.line);
      globalArgs.push(ins);
    } else {
      result[result.length - 1]!.instructions.push(ins);
    }
  }
  return { globalArgs, stages: result };
}
