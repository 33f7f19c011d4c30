// One tfjs instance for the whole repo: import `tf` from here, never from @tensorflow/* directly.
// Importing this module also registers every gradient and the wasm/cpu backends.
export * as tf from '@tensorflow/tfjs-core';
export { blasSummary, initEngine, engineInfo } from './init';
export { sgemmGflops, setNativeKernelsEnabled } from './native-control';
// Fused transformer pieces: one native kernel each way on wasm+native, tfjs composites elsewhere.
export { adamwStep, attendAndAppend, attendPast, layerNorm, linear, selfAttention, splitHeads, sumOfSquares } from './fused-ops';
// Zero-copy reads of a tensor's data on wasm (the sampler's cache handoff).
export { float32TensorFrom, float32View } from './float-view';
