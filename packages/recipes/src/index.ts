export { estimatorRedistribution } from './estimator-hook';
export type { EstimatorHook } from './estimator-hook';
export { taskGrpoSetup } from './task-grpo';
