import { PassThrough } from 'node:stream';
import { setImmediate as tick } from 'node:timers/promises';
import { expect, it } from 'vitest';
import { BodyReadError, BodyRelay } from './request-body.ts';

it('relays the whole stream, and reads nothing from it before its own first read', async () => {
  const src = new PassThrough();
  src.write('ab');
  const relay = new BodyRelay(src);
  await tick();
  expect([relay.started, src.readableDidRead]).toEqual([false, false]);
  src.end('cd');
  const chunks: Buffer[] = [];
  for await (const c of relay) chunks.push(c as Buffer);
  expect(Buffer.concat(chunks).toString()).toBe('abcd');
  expect(relay.started).toBe(true);
});

it('leaves the stream alive and paused when destroyed mid-body, so a second relay or a drain can take the rest', async () => {
  const src = new PassThrough();
  const relay = new BodyRelay(src);
  const first: string[] = [];
  relay.on('data', (c: Buffer) => first.push(c.toString()));
  src.write('one');
  await tick();
  relay.destroy(new Error('upstream answered early'));
  relay.on('error', () => {});
  await tick();
  expect(first).toEqual(['one']);
  expect([src.destroyed, src.isPaused()]).toEqual([false, true]);
  src.end('two');
  const rest: string[] = [];
  for await (const c of new BodyRelay(src)) rest.push((c as Buffer).toString());
  expect(rest).toEqual(['two']);
});

it('fails with BodyReadError when the client stream fails or closes before its end', async () => {
  const broken = new PassThrough();
  const relay = new BodyRelay(broken);
  const failed = new Promise<Error>((resolve) => relay.once('error', resolve));
  relay.resume();
  await tick();
  broken.destroy(new Error('socket hang up'));
  const err = await failed;
  expect(err).toBeInstanceOf(BodyReadError);
  expect(err.message).toBe('cannot read request body: socket hang up');

  const cut = new PassThrough();
  const relay2 = new BodyRelay(cut);
  const failed2 = new Promise<Error>((resolve) => relay2.once('error', resolve));
  relay2.resume();
  await tick();
  cut.destroy();
  expect((await failed2).message).toBe('cannot read request body: client closed the connection');
});
