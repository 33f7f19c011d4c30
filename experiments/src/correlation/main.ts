import { experimentMain } from '../common/run-command';
import { correlationExperiment } from './definition';

experimentMain(correlationExperiment);
