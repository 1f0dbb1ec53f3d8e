// The parts of prom-client the registry uses, each loaded from its own file. prom-client's index
// loads all of it at once: its push gateway client (node:https, node:zlib), its cluster aggregator
// (node:cluster, node:child_process, node:dgram), prom-client's Summary with its t-digests and the
// default collectors with @opentelemetry/api (44 modules): ~75 of the ~110 ms of CPU it took a
// process to load, for parts a binary uses later or never (issue 18 item 4, "startup"). The
// package has no "exports" map, so its files are importable as they are; registry.test.ts
// renders every kind of metric through them.
import type client from 'prom-client';
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);

export const Registry = require('prom-client/lib/registry.js') as typeof client.Registry;
export const Counter = require('prom-client/lib/counter.js') as typeof client.Counter;
export const Gauge = require('prom-client/lib/gauge.js') as typeof client.Gauge;
export const Histogram = require('prom-client/lib/histogram.js') as typeof client.Histogram;

/** loadDefaultCollectors loads prom-client's collectDefaultMetrics (the process and Node.js collectors) on first call. */
export function loadDefaultCollectors(): typeof client.collectDefaultMetrics {
  return require('prom-client/lib/defaultMetrics.js') as typeof client.collectDefaultMetrics;
}
