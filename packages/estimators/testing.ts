/**
 * @rred/estimators/testing — test doubles for tests in this and other packages: an exactly enumerable
 * LanguageModel and the ground-truth values it allows (not part of the library's API).
 */
export { EnumerableLM } from './src/testing/enumerable-lm';
export { exactAnswerReward, exactValue } from './src/testing/enumerate';
export { toyModel, toyReward, toyTokens } from './src/testing/toy-setup';
