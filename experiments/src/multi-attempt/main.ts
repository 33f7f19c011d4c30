import { experimentMain } from '../common/run-command';
import { multiAttemptExperiment } from './definition';

experimentMain(multiAttemptExperiment);
