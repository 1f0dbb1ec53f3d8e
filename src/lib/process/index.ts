export { eulaAccepted, eulaRequiredMessage } from './common-flags.ts';
export { serveUntilSignal, type Component } from './lifecycle.ts';
export { startRuntime, type Runtime, type RuntimeOptions } from './runtime.ts';
