import { experimentMain } from '../common/run-command';
import { renderExperiment } from '../render/registry';
import { correlationExperiment } from './definition';

experimentMain(correlationExperiment, (store, runId, outDir) => renderExperiment('correlation', store, runId, outDir));
