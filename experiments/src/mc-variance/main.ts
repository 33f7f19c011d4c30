import { experimentMain } from '../common/run-command';
import { mcVarianceExperiment } from './definition';

experimentMain(mcVarianceExperiment);
