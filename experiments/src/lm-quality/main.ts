import { experimentMain } from '../common/run-command';
import { renderExperiment } from '../render/registry';
import { lmQualityExperiment } from './definition';

experimentMain(lmQualityExperiment, (store, runId, outDir) => renderExperiment('lm', store, runId, outDir));
