import { experimentMain } from '../common/run-command';
import { renderExperiment } from '../render/registry';
import { mcVarianceExperiment } from './definition';

experimentMain(mcVarianceExperiment, (store, runId, outDir) => renderExperiment('mc-variance', store, runId, outDir));
