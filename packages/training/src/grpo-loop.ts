import { ProgressBar, yieldToEventLoop } from '@rred/core';
import type { GrpoStepMetrics, GrpoTrainer } from './grpo';

/** The part of a results-store Run the loop writes to (structural, so tests can pass a stub). */
export interface MetricSink {
  logMetrics(values: Record<string, number>, step: number): void;
}

interface GrpoLoopOptions {
  /** Trainer state file; written every `checkpointEvery` steps and at the end. */
  statePath?: string;
  /** Extra JSON saved with the state (e.g. the store run id, config hash). */
  stateInfo?: () => Record<string, unknown>;
  /** Where per-step metrics go (prefixed `grpo.`). */
  sink?: MetricSink;
  /** Called after every step (e.g. periodic evaluation); awaited. */
  onStep?: (metrics: GrpoStepMetrics) => Promise<void> | void;
  label?: string;
}

/**
 * Runs the trainer from its current step to `config.steps` with a progress bar (reward, length,
 * clip fraction, ETA), per-step metrics to the sink, and trainer-state checkpoints. Yields to the event
 * loop between steps so signal handlers (store run → KILLED) can run. Returns every step's metrics.
 */
export async function runGrpo(trainer: GrpoTrainer, options: GrpoLoopOptions = {}): Promise<GrpoStepMetrics[]> {
  const { steps, checkpointEvery } = trainer.config;
  const start = trainer.step;
  const bar = new ProgressBar(start > 0 ? `${options.label ?? 'grpo'} (from step ${start})` : (options.label ?? 'grpo'), steps - start);
  const history: GrpoStepMetrics[] = [];
  const save = () => {
    if (options.statePath) trainer.save(options.statePath, options.stateInfo?.() ?? {});
  };
  while (trainer.step < steps) {
    await yieldToEventLoop(); // a pending SIGINT/SIGTERM is handled here
    const m = await trainer.trainStep();
    history.push(m);
    const { step, ...values } = m;
    options.sink?.logMetrics(Object.fromEntries(Object.entries(values).map(([k, v]) => [`grpo.${k}`, v])), step);
    bar.tick(
      1,
      `reward ${m.rewardMean.toFixed(3)} len ${m.completionLength.toFixed(0)} clip ${(m.clippedFraction * 100).toFixed(1)}% ` +
        `zero-std ${(m.zeroStdGroups * 100).toFixed(0)}% |g| ${m.gradNorm.toFixed(2)} ${m.stepMs}ms/step`,
    );
    await options.onStep?.(m);
    if (checkpointEvery > 0 && m.step % checkpointEvery === 0) save();
  }
  save();
  return history;
}
