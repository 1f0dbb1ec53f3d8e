import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { DockerfileParseError, parseDockerfile, stages } from './dockerfile.ts';

const piece = fc.constantFrom('FROM ', 'node:24', ' AS ', 'b', 'RUN ', 'echo', ' \\\n', '\n', '# c\n', 'COPY ', '--from=b ', '--chmod=0755 ', '["a", "b"]', '[1]', '[', 'ENTRYPOINT ', 'ARG X=1\n', 'USER 1\n', 'bogus ', '  ');

describe('parseDockerfile fuzz', () => {
  it('returns instructions or throws DockerfileParseError, never anything else', () => {
    const check = (text: string) => {
      try {
        stages(parseDockerfile(text));
      } catch (err) {
        expect(err).toBeInstanceOf(DockerfileParseError);
      }
    };
    fc.assert(fc.property(fc.string({ maxLength: 200 }), check), { numRuns: 1500 });
    fc.assert(fc.property(fc.array(piece, { maxLength: 40 }).map((p) => p.join('')), check), { numRuns: 2000 });
  });
});
