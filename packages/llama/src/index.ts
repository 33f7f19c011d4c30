export { exportGguf } from './export-gguf';
export { LlamaLM } from './llama-lm';
