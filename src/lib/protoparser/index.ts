// Every ingestion wire format and export writer, one namespace per format. See README.md.
export * as common from './common/index.ts';
export * as prometheus from './prometheus/index.ts';
export * as remotewrite from './remotewrite/index.ts';
export * as influx from './influx/index.ts';
export * as jsonline from './jsonline/index.ts';
export * as csv from './csv/index.ts';
export * as native from './native/index.ts';
export * as agentfmt from './agentfmt/index.ts';
export * as opentsdb from './opentsdb/index.ts';
export * as opentsdbhttp from './opentsdbhttp/index.ts';
export * as graphite from './graphite/index.ts';
