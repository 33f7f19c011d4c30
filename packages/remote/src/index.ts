export { RemoteLM } from './remote-lm';
export { RRED_CHAT } from './config';
export { checkListenHost, startServer } from './serve/server';
export type { RunningServer } from './serve/server';
