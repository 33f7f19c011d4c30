/**
 * One (method, seed) fine-tuning run: GRPO from the starting checkpoint with the method's token weights σ
 * (estimators/src/sigma.ts; uniform, Eq. 12, for grpo), validation avg@k at step 0, every `validation.every` steps and at the end (logged against
 * the step and the cumulative training wall time), the best-by-validation weights kept in memory, then
 * avg@k on every eval split at the final and at the best weights. Everything goes into the child run.
 */
import { Rng } from '@rred/core';
import type { TransformerLM } from '@rred/lm';
import type { MetricSink } from '@rred/training';
import { captureWeights, GrpoTrainer, restoreWeights, runGrpo, type TrainerState } from '@rred/training';
import {
  creditStepScores,
  estimatorRedistribution,
  grailRedistribution,
  oracleRedistribution,
  oracleStepScores,
  taskGrpoSetup,
  type EstimatorHook,
  type StepScoreSource,
} from '@rred/recipes';
import { returnEquivalent } from '@rred/estimators';
import { recordAlignment, referencesById, type TaskRecord } from '@rred/tasks';
import { sigmaShuffleRedistribution, signedPositionRedistribution } from './control-hooks';
import { continuationReward, specialTokens } from '../common/rollouts';
import { KEYS } from './keys';
import { evaluateRecords, evaluateSplits, type EvalSettings, type SplitResults } from './evaluate';
import { firstErrorToken } from './oracle-errors';
import { trainerConfig, type ChildConfig } from './child-config';

/** What a child needs besides its config: the model (fresh from the checkpoint) and the problems. */
export interface ChildData {
  loadModel(): TransformerLM;
  train: readonly TaskRecord[];
  validation: readonly TaskRecord[];
  evalSplits: Record<string, readonly TaskRecord[]>;
  /** The starting model's evalSplits results by seed, when the parent computed them (reused when the best checkpoint is step 0). */
  start?: ReadonlyMap<number, SplitResults>;
}

/** The eval settings of a child (the same for every child of a parent: the parent's start evaluation uses the first child's). */
export function evalSettings(config: ChildConfig): EvalSettings {
  return { ...config.evaluation, maxNewTokens: config.grpo.maxNewTokens };
}

/** The part of a results-store Run a child writes to (per-step metrics; summary metrics at step 0). */
type ChildSink = MetricSink;

/** The hooks of a method: σ (undefined for grpo and verigate: the trainer's uniform 1/|o|) and VeriGate's step scores. */
interface MethodHooks {
  redistribute?: EstimatorHook;
  stepScores?: StepScoreSource;
}

/**
 * The hooks of a child's method. A trace a credit source cannot score (a reference suffix that does not
 * fit after its thinking, no reference, an error the oracle does not locate) keeps uniform σ; the
 * hooks count those (`lastCall().fallback`).
 */
function methodHooks(config: ChildConfig, model: TransformerLM, train: readonly TaskRecord[]): MethodHooks {
  const tokenizer = model.tokenizer;
  const common = {
    model,
    segmentation: config.segmentation,
    tokenText: (id: number) => tokenizer.tokenText(id),
    tokens: specialTokens(tokenizer),
  };
  const rredcotOptions = () => ({
    ...common,
    method: 'rredcot' as const,
    estimatorConfig: config.estimator,
    datasetReferences: referencesById(train, tokenizer),
    // the oracle alignment in the bed's rendering (the task's notation, or the free-form bed's prose); read only with alignment 'task'
    alignment: train.length > 0 ? recordAlignment(train[0], tokenizer) : undefined,
  });
  const sigma = config.sigma ?? undefined;
  switch (config.method) {
    case 'grpo':
    case 'grpo-ref-sft':
      return {};
    case 'sigma-shuffle':
      return { redistribute: sigmaShuffleRedistribution({ ...rredcotOptions(), sigma }) };
    case 'signed-position':
      return { redistribute: signedPositionRedistribution({ segmentation: config.segmentation, tokenText: common.tokenText, sigma }) };
    case 'rredcot':
    case 'rredcot-oracle-aligned':
    case 'rredcot-literal':
    case 'rredcot-l1':
    case 'rredcot-both':
    case 'rredcot-both-l1':
    case 'rredcot-own':
      return { redistribute: estimatorRedistribution({ ...rredcotOptions(), sigma }) };
    case 'verigate':
      return { stepScores: creditStepScores(rredcotOptions()) };
    case 'verigate-oracle':
      return { stepScores: oracleStepScores({ ...common, firstError: firstErrorToken(tokenizer, train) }) };
    case 'grail':
      return { redistribute: grailRedistribution({ model }) };
    case 'mc': {
      const byId = new Map(train.map((r) => [r.id, r]));
      return {
        redistribute: estimatorRedistribution({
          ...common,
          method: 'mc',
          estimatorConfig: config.mc,
          continuationReward: (id) => continuationReward(tokenizer, byId.get(id)!),
          sigma,
        }),
      };
    }
    case 'oracle':
      return { redistribute: oracleRedistribution({ ...common, firstError: firstErrorToken(tokenizer, train), sigma }) };
  }
}

/**
 * grpo-ref-sft's SFT targets: a prompt's first dataset reference as a completion, u* `</think>` y* `<eos>`
 * (the value term's suffix of Eq. 9 from s_0), or null when the record has none.
 */
function referenceCompletions(model: TransformerLM, train: readonly TaskRecord[]): (prompt: { id: string }) => number[] | null {
  const refs = referencesById(train, model.tokenizer, 1);
  const { endThink, eos } = specialTokens(model.tokenizer);
  return (prompt) => {
    const [first] = refs(prompt.id);
    return first ? [...first.solution, endThink, ...first.answer, eos] : null;
  };
}

export async function trainChild(run: ChildSink, config: ChildConfig, data: ChildData, label: string): Promise<void> {
  if (config.sigma && !returnEquivalent(config.sigma))
    process.stderr.write(
      `${label}: σ normalization '${config.sigma.normalization}' does not keep Σ_t σ_t = 1 (return equivalence, Sec. 3.3); grpo.sigmaSum* shows by how much\n`,
    );
  const model = data.loadModel();
  const hooks = methodHooks(config, model, data.train);
  const setup = {
    ...taskGrpoSetup({ model, records: data.train, redistribute: hooks.redistribute }),
    stepScores: hooks.stepScores,
    ...(config.referenceSft > 0 ? { referenceCompletion: referenceCompletions(model, data.train) } : {}),
  };
  const trainer = new GrpoTrainer(setup, trainerConfig(config));
  try {
    // evaluation draws depend on the seed only, not the method: methods are compared on paired samples
    const rng = new Rng(config.seed);
    let trainSeconds = 0;
    let best: { step: number; avg: number; weights: TrainerState['weights'] } | null = null;
    // the evaluation's settings (batch size, max new tokens) with validation's samples per problem
    const validation = { ...evalSettings(config), samplesPerProblem: config.validation.samplesPerProblem };
    const validate = async (step: number) => {
      const { avg, pass } = await evaluateRecords(model, data.validation, validation, rng.fork(`validation-${step}`));
      run.logMetrics({ [KEYS.validationAvg]: avg, [KEYS.validationPass]: pass, [KEYS.validationSeconds]: trainSeconds }, step);
      if (!best || avg > best.avg) best = { step, avg, weights: captureWeights(setup.policy.variables) };
      process.stderr.write(`${label} validation @${step}: avg@${config.validation.samplesPerProblem} ${(avg * 100).toFixed(1)}%\n`);
    };
    await validate(0);
    await runGrpo(trainer, {
      sink: run,
      label,
      onStep: async (m) => {
        trainSeconds += m.stepMs / 1000;
        const source = hooks.redistribute ?? hooks.stepScores;
        if (source) {
          const c = source.lastCall();
          run.logMetrics({ [KEYS.fallback]: c.fallback, [KEYS.estimated]: c.estimated }, m.step);
        }
        if (m.step % config.validation.every === 0 || m.step === config.steps) await validate(m.step);
      },
    });
    run.logMetrics({ [KEYS.trainSeconds]: trainSeconds }, 0);
    const chosen = best as { step: number; avg: number; weights: TrainerState['weights'] } | null;
    if (!chosen) throw new Error('finetune: no validation ran');
    const evalAt = () => evaluateSplits(model, data.evalSplits, evalSettings(config), config.seed);
    const log = (which: 'final' | 'best', results: SplitResults) => {
      for (const [split, r] of Object.entries(results))
        run.logMetrics({ [KEYS.evalAvg(which, split)]: r.avg, [KEYS.evalPass(which, split)]: r.pass }, 0);
    };
    const final = await evalAt();
    log('final', final);
    if (chosen.step === config.steps) {
      log('best', final); // the best checkpoint is the final one: same weights, same draws, same numbers
    } else if (chosen.step === 0 && data.start?.has(config.seed)) {
      log('best', data.start.get(config.seed)!); // the best is the start: the parent evaluated those weights with these draws
    } else {
      restoreWeights(setup.policy.variables, chosen.weights, 'best checkpoint');
      log('best', await evalAt());
    }
    run.logMetrics({ [KEYS.bestStep]: chosen.step }, 0);
  } finally {
    trainer.optimizer.dispose();
    model.dispose();
  }
}
