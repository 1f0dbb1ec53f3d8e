export { FsRemote, type FsRemoteOptions } from './fs-remote.ts';
