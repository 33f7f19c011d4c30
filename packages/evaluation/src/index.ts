export { evaluateSplit } from './evaluate-split';
export type { AccuracyReport } from './evaluate-split';
export { completerFromModel } from './completer';
export { checkRecordsFit } from './dataset-fit';
