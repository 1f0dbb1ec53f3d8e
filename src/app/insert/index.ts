// Package insert: every ingestion route and network receiver of the TSDB, written against
// storageapi's Inserter (the single-node storage in-process, or a cluster's shard router).
export { classifyInsertError, InsertError, type InsertErrorCode } from './errors.ts';
export { ExtraLabeler, parseExtraLabels } from './extra-labels.ts';
export { insertOptionsFromFlags, receiverAddressesFromFlags, type ReceiverAddresses } from './flags.ts';
export { ingestBody, type InsertOptions, type KeyedInserter, type TenantOf } from './ingest.ts';
export { exposeGc, type Gc, YoungGarbage } from './young-garbage.ts';
export { startReceivers, type Receivers } from './receivers.ts';
export { INSERT_ROUTES, registerInsertRoutes } from './routes.ts';
