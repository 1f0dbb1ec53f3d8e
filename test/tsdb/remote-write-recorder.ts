// A second remote-write endpoint for the interop tests: it stores every decoded sample so a test
// can compare what a real client sent with what tsdb gives back.

import { createServer } from 'node:http';
import { type AddressInfo } from 'node:net';
import { remotewrite } from '../../src/lib/protoparser/index.ts';
import { labelsKey } from './client.ts';

/** RecordedSample is one sample as sent: labels, ms timestamp, and the value's exact bits. */
export interface RecordedSample {
  readonly labels: Record<string, string>;
  readonly timestamp: number;
  readonly bits: bigint;
}

/** RemoteWriteRecorder is a running endpoint at `url` (…/api/v1/write). */
export interface RemoteWriteRecorder {
  readonly url: string;
  /** samples maps "labelsKey@ts" to the sample, the last one sent winning. */
  readonly samples: Map<string, RecordedSample>;
  requests(): number;
  /** failures lists requests it could not decode; a real client never causes one. */
  readonly failures: string[];
  close(): Promise<void>;
}

const scratch = new DataView(new ArrayBuffer(8));

/** floatBits returns the IEEE-754 bits of v (NaN payloads kept). */
export function floatBits(v: number): bigint {
  scratch.setFloat64(0, v);
  return scratch.getBigUint64(0);
}

/** startRecorder listens on 127.0.0.1:0 and answers every well-formed write with 204. */
export async function startRecorder(): Promise<RemoteWriteRecorder> {
  const samples = new Map<string, RecordedSample>();
  const failures: string[] = [];
  let requests = 0;
  const server = createServer((req, res) => {
    requests++;
    const maxBytes = 64 * 2 ** 20;
    remotewrite.readRemoteWriteBody(req, { contentEncoding: req.headers['content-encoding'], maxBodyBytes: maxBytes, maxDecodedBytes: maxBytes }).then((body) => {
      for (const row of remotewrite.parse(body).rows) {
        const labels = Object.fromEntries(row.labels.map((l) => [l.name, l.value]));
        samples.set(`${labelsKey(labels)}@${row.timestamp}`, { labels, timestamp: row.timestamp, bits: floatBits(row.value) });
      }
      res.writeHead(204).end();
    }, (err: unknown) => {
      failures.push(`${req.method} ${req.url}: ${(err as Error).message}`);
      res.writeHead(400).end((err as Error).message);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/api/v1/write`,
    samples,
    failures,
    requests: () => requests,
    close: () => new Promise((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    }),
  };
}
