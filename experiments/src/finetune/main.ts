import { experimentMain } from '../common/run-command';
import { finetuneExperiment } from './definition';

experimentMain(finetuneExperiment);
