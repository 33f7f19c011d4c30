export { estimatorRedistribution } from './estimator-hook';
export type { EstimatorHook } from './estimator-hook';
export { taskGrpoSetup } from './task-grpo';
export { oracleRedistribution } from './oracle-hook';
export { grailRedistribution } from './grail-hook';
export { creditStepScores, oracleStepScores } from './step-scores';
export type { StepScoreSource } from './step-scores';
