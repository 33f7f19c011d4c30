export { byteLevelBytes, byteLevelText } from './byte-level';
export { tokenSpans, tokenText, type TextTokenizer } from './tokenizer';
export { loadHfTokenizer } from './hf-tokenizer';
export { answerOf, modelFamily, promptText } from './family';
export { verifyMath } from './verify-math';
export { loadDataset, DATASET_FORMATS, type DatasetFormat } from './datasets';
