export { eulaAccepted, eulaRequiredMessage } from './common-flags.ts';
export { serveUntilSignal, type Component } from './lifecycle.ts';
export { FLAGS_CHECK_VAR, startRuntime, startThreadRuntime, type Runtime, type RuntimeOptions, type ThreadRuntime } from './runtime.ts';
export { flagValueOrExit, listenOrExit } from './startup.ts';
