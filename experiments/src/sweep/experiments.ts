/** Experiments a sweep can run, by name. */
import type { ExperimentDefinition } from '../common/experiment';
import { correlationExperiment } from '../correlation/definition';
import { mcVarianceExperiment } from '../mc-variance/definition';

export const SWEEPABLE: Record<string, ExperimentDefinition> = {
  'mc-variance': mcVarianceExperiment as unknown as ExperimentDefinition,
  correlation: correlationExperiment as unknown as ExperimentDefinition,
};

/** Metrics a sweep report shows for each experiment (the first is plotted). */
export const REPORT_METRICS: Record<string, string[]> = {
  correlation: [
    'spearman.all.rredcot_mc',
    'pearson.all.rredcot_mc',
    'spearman.early.rredcot_mc',
    'spearman.middle.rredcot_mc',
    'spearman.late.rredcot_mc',
    'segments',
    'mean_references',
    'skipped_traces',
  ],
  'mc-variance': ['samples_for_sd_threshold', 'mean_segments', 'exit_points', 'cut_correct_fraction_50'],
};
