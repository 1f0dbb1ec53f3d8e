import { fileURLToPath } from 'node:url';

// Frames from these files are the logger itself, not its caller.
const ownFiles = ['logger.ts', 'caller.ts', 'root.ts'].map((f) => fileURLToPath(new URL(f, import.meta.url)));
const repoRoot = fileURLToPath(new URL('../../../', import.meta.url));

/**
 * callerLocation returns "<path relative to the repo>:<line>" of the first stack frame outside the
 * logger and pino, i.e. the code that called the log method.
 */
export function callerLocation(): string {
  const stack = new Error().stack?.split('\n') ?? [];
  for (let i = 1; i < stack.length; i++) {
    const frame = stack[i]!;
    if (frame.includes('node_modules') || ownFiles.some((f) => frame.includes(`${f}:`)) || frame.includes('node:')) continue;
    const m = /\(?((?:file:\/\/)?[^()\s]+):(\d+):\d+\)?$/.exec(frame);
    if (m === null) continue;
    let file = m[1]!.startsWith('file://') ? fileURLToPath(m[1]!) : m[1]!;
    if (file.startsWith(repoRoot)) file = file.slice(repoRoot.length);
    return `${file}:${m[2]}`;
  }
  return 'unknown';
}
