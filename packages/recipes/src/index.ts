export { estimatorRedistribution } from './estimator-hook';
export type { EstimatorHook, EstimatorHookOptions, RedistributionCallStats } from './estimator-hook';
export { taskGrpoSetup } from './task-grpo';
export { taskReferences } from './task-references';
