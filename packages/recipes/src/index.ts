export { estimateCredits, estimatorRedistribution, tracesWithSignal } from './estimator-hook';
export type { EstimatorHook, EstimatorHookOptions, RedistributionCallStats } from './estimator-hook';
export { taskGrpoSetup } from './task-grpo';
export { oracleRedistribution } from './oracle-hook';
export { grailRedistribution } from './grail-hook';
export { creditStepScores, oracleStepScores } from './step-scores';
export type { StepScoreSource } from './step-scores';
