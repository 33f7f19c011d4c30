import { experimentMain } from '../common/run-command';
import { goldExperiment } from './definition';

experimentMain(goldExperiment);
