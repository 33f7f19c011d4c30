/**
 * @rred/estimators/value-head — OPTIONAL, flagged: a value-head baseline (logistic head on frozen policy
 * hidden states). Not the paper's method, so it stays off the main entry point.
 */
export { transformerHiddenStates } from './src/value-head/hidden-states';
export { exitPointFeatures, fitValueHead, valueHeadEstimate } from './src/value-head/value-head';
