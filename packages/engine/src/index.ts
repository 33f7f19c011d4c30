// Minimal bootstrap so other packages can start; the engine helper replaces the internals.
export * as tf from '@tensorflow/tfjs-core';
export { initEngine, engineInfo } from './init';
export type { EngineInfo, InitEngineOptions } from './init';
