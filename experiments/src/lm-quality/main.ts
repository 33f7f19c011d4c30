import { experimentMain } from '../common/run-command';
import { lmQualityExperiment } from './definition';

experimentMain(lmQualityExperiment);
