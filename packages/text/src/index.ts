export { byteLevelBytes, byteLevelText } from './byte-level';
export { charTokenizer, tokenSpans, tokenText, type TextTokenizer } from './tokenizer';
export { hfTokenizer, loadHfTokenizer, type HfTokenizer } from './hf-tokenizer';
export { labTokenizerJson } from './lab-tokenizer-json';
export { answerOf, modelFamily, promptText, MODEL_FAMILIES, type ModelFamily } from './family';
export { boxedContents } from './boxed';
export { verifyMath, type MathVerdict } from './verify-math';
export { loadDataset, DATASET_FORMATS, type DatasetFormat } from './datasets';
