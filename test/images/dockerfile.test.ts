import { describe, expect, it } from 'vitest';
import { DockerfileParseError, parseDockerfile, stages } from './dockerfile.ts';

describe('parseDockerfile', () => {
  it('parses instructions, continuations, flags and exec form', () => {
    const f = (text: string, want: unknown) => expect(parseDockerfile(text).map((i) => [i.keyword, i.flags, i.args, i.exec ?? null])).toEqual(want);
    f('FROM node:24 AS deps\n', [['FROM', {}, 'node:24 AS deps', null]]);
    f('# comment\nRUN a \\\n  && b\n', [['RUN', {}, 'a  && b', null]]);
    f('COPY --from=deps --chmod=0755 /a /b', [['COPY', { from: 'deps', chmod: '0755' }, '/a /b', null]]);
    f('ENTRYPOINT ["node", "x.ts"]', [['ENTRYPOINT', {}, '["node", "x.ts"]', ['node', 'x.ts']]]);
    f('entrypoint node x.ts', [['ENTRYPOINT', {}, 'node x.ts', null]]);
  });

  it('splits stages and keeps global ARGs', () => {
    const s = stages(parseDockerfile('ARG B=x:1\nFROM ${B} AS one\nRUN a\nFROM one\nUSER 1'));
    expect(s.globalArgs.map((a) => a.args)).toEqual(['B=x:1']);
    expect(s.stages.map((x) => [x.name ?? null, x.base, x.instructions.length])).toEqual([['one', '${B}', 1], [null, 'one', 1]]);
  });

  it('rejects what is not a Dockerfile', () => {
    const f = (text: string) => expect(() => stages(parseDockerfile(text)), text).toThrow(DockerfileParseError);
    f('FORM node');
    f('RUN echo before from');
    f('FROM a b c');
    f('CMD [1, 2]');
  });
});
