// One tfjs instance for the whole repo: import `tf` from here, never from @tensorflow/* directly.
// Importing this module also registers every gradient and the wasm/cpu backends.
export * as tf from '@tensorflow/tfjs-core';
export { initEngine, engineInfo, InitEngineOptionsSchema } from './init';
export type { EngineInfo, InitEngineOptions } from './init';
export { BACKEND_ORDER } from './backend-choice';
export type { BackendName } from './backend-choice';
export { sgemmGflops, setNativeKernelsEnabled } from './native-control';
// Fused transformer pieces: one native kernel each way on wasm+native, tfjs composites elsewhere.
export { adamwStep, gelu, layerNorm } from './fused-ops';
export type { AdamWHyper } from './fused-ops';
