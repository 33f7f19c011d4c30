import { mcConfigSchema, rredcotConfigSchema, rredcotPresets, sigmaConfigSchema } from '@rred/estimators';
import { SegmentationConfigSchema } from '@rred/segmentation';
import { DEFAULT_DATASET_SEED, EVAL_SPLITS } from '@rred/tasks';
import { grpoConfigFields, optimizerConfigSchema, refineGrpoConfig } from '@rred/training';
import { seedSchema } from '@rred/core';
import { z } from 'zod';
import { EMBEDDED_CHECKPOINT, EMBEDDED_CHECKPOINTS } from '@rred/lm';
import { checkpointSchema } from '../common/config-schemas';

/**
 * The compared fine-tuning methods (arms): paper Sec. 4 (Tab. 1 and Tab. 2) and neighbouring credit
 * assignment methods (GRAIL, VeriGate, oracle and MC credit). What each one does is in the `methods` description below and in experiments/src/README.md.
 */
/** The RREDCoT arms: σ from the estimator's segment credits (configs `rredcot`, `rredcotOracle`, `rredcotBoth`, `rredcotOwn`). */
const RREDCOT_ARMS = [
  'rredcot',
  'rredcot-oracle-aligned',
  'rredcot-literal',
  'rredcot-l1',
  'rredcot-both',
  'rredcot-both-l1',
  'rredcot-own',
] as const;
/** The controls: what of RREDCoT's gain the credit's content, its concentration, and the reference access each carry. */
const CONTROL_ARMS = ['sigma-shuffle', 'signed-position', 'grpo-ref-sft'] as const;
export const METHODS = ['grpo', ...RREDCOT_ARMS, ...CONTROL_ARMS, 'grail', 'verigate', 'verigate-oracle', 'oracle', 'mc'] as const;
export type Method = (typeof METHODS)[number];
/** Methods whose σ comes from segment credits through a `sigma` config (`segmentSigma`, estimators/src/sigma.ts). */
export const CREDIT_METHODS = [...RREDCOT_ARMS, 'sigma-shuffle', 'signed-position', 'oracle', 'mc'] as const;
export type CreditMethod = (typeof CREDIT_METHODS)[number];

const lr = (dflt: number, what: string) =>
  z.number().positive().max(1).default(dflt).describe(`Peak learning rate of ${what}. Range (0, 1].`);

/** σ of a credit method: the sigma config, aligned (`literal` for rredcot-literal), softmax or signed L1. */
const sigmaOf = (what: string, signHandling: 'aligned' | 'literal', normalization: 'softmax' | 'L1' = 'softmax') =>
  sigmaConfigSchema
    .default(normalization === 'softmax' ? { signHandling } : { signHandling, normalization, credits: 'raw' })
    .describe(
      `How ${what}'s segment credits and the advantage become σ_k (sigmaConfigSchema, estimators/src/sigma.ts): ${signHandling}, ` +
        (normalization === 'softmax'
          ? 'softmax over per-trace standardized credits, τ = 1, length prior (equal credits ⇒ plain GRPO).'
          : 'signed L1 over raw credits, σ_k = c_k/Σ|c_j| (Σσ ∈ [−1, 1]: breaks return equivalence, logged per step).'),
    );

/** Further starting checkpoints, each with the methods that run on it. */
const testBedSchema = z
  .object({
    checkpoint: checkpointSchema.describe(
      'Starting checkpoint, relative to the repository root, or a bed by name (embedded, assumptionsMet, freeForm).',
    ),
    methods: z.array(z.enum(METHODS)).min(1).describe('Methods trained from it (a subset of the arms; same seeds and settings).'),
  })
  .strict();

/**
 * The name of a checkpoint in tables and summary.json: its key in EMBEDDED_CHECKPOINTS when it is one
 * of the shipped ones ('embedded', 'assumptionsMet'), else its file name without `.ckpt`.
 */
export function checkpointName(checkpoint: string): string {
  const known = Object.entries(EMBEDDED_CHECKPOINTS).find(([, v]) => v.checkpoint === checkpoint);
  return known ? known[0] : (checkpoint.split('/').pop() ?? checkpoint).replace(/\.ckpt$/, '');
}

/** Methods whose lr the search tunes by default, and the methods that take another's chosen lr. */
const SEARCHED: Method[] = ['grpo', 'rredcot', 'rredcot-oracle-aligned'];
const FOLLOWERS: Partial<Record<Method, Method>> = {
  'sigma-shuffle': 'rredcot',
  'signed-position': 'rredcot',
  'grpo-ref-sft': 'grpo',
  verigate: 'grpo',
  'verigate-oracle': 'grpo',
};

/**
 * The learning-rate search (and grpo-ref-sft's λ), per test bed: every candidate × the first `seeds` seeds,
 * chosen by validation avg@k; the comparison then trains every method at its chosen value (children at
 * the chosen value are the search's own, reused).
 */
const searchSchema = z
  .object({
    methods: z
      .array(z.enum(METHODS))
      .default([])
      .describe(
        'Methods whose lr is tuned over `learningRates` on every test bed that runs them (empty: no search; every lr from `learningRates`).',
      ),
    learningRates: z
      .array(z.number().positive().max(1))
      .min(1)
      .default([3e-5, 1e-4, 3e-4])
      .describe('Candidate peak learning rates. Range (0, 1].'),
    follow: z
      .record(z.enum(METHODS), z.enum(METHODS))
      .default(FOLLOWERS)
      .describe(
        "Methods that take another method's chosen lr on the same bed (a control runs at the lr of the arm it controls), when that one is searched.",
      ),
    referenceSft: z
      .array(z.number().positive())
      .default([])
      .describe("Candidate λ of 'grpo-ref-sft', at its followed (grpo's) chosen lr (empty: λ = `referenceSft`)."),
    seeds: z.number().int().min(1).default(3).describe('Seeds per candidate: the first n of `seeds`.'),
    lastPoints: z
      .number()
      .int()
      .min(1)
      .default(3)
      .describe('Score of a candidate: its validation avg@k averaged over the last n validation points of each run, then over seeds.'),
  })
  .strict()
  .default({})
  .describe(
    `Learning-rate search (${SEARCHED.join(', ')} in the committed config) and λ search of grpo-ref-sft, both chosen on validation.`,
  );

/** GRPO hyperparameters shared by every method: the trainer's schema (and its cross-field checks) minus what the experiment sets per child. */
const sharedGrpoSchema = grpoConfigFields
  .omit({
    seed: true,
    steps: true,
    redistribution: true,
    processAdvantage: true,
    optimizer: true,
    checkpointEvery: true,
    referenceSft: true,
  })
  .superRefine(refineGrpoConfig);

export const finetuneConfigSchema = z
  .object({
    checkpoint: checkpointSchema
      .default(EMBEDDED_CHECKPOINT)
      .describe(
        `Starting checkpoint of every run, relative to the repository root, or a bed by name (embedded, assumptionsMet, freeForm).`,
      ),
    methods: z
      .array(z.enum(METHODS))
      .min(1)
      .default(['grpo', 'rredcot', 'rredcot-own'])
      .describe(
        "Methods trained from `checkpoint`: 'grpo' (uniform σ, Eq. 12); 'rredcot' (estimator `rredcot`, the alignment-free value term, σ by `sigma.rredcot`, aligned); " +
          "'rredcot-oracle-aligned' (estimator `rredcotOracle`: the value suffix 'remaining' reads the task's alignment, an upper bound); " +
          "'sigma-shuffle' (rredcot's σ_k permuted across the thinking segments of each trace by a seeded RNG: the same concentration, no credit content); " +
          "'signed-position' (σ from the outcome-signed position credit (2ζ − 1)·k through `sigma.signed-position`: no model, no references); " +
          "'grpo-ref-sft' (GRPO plus λ · NLL of the step's prompts' dataset references, λ `referenceSft` or chosen by `search.referenceSft`: reference access without credit); " +
          "'rredcot-literal' (the same estimator, σ by `sigma.rredcot-literal`: the paper's formula as written); the terms × normalization 2×2 with dataset " +
          "references: 'rredcot' (v̂ = V, softmax), 'rredcot-l1' (v̂ = V, signed L1), 'rredcot-both' (estimator `rredcotBoth`, v̂ = I + V, softmax), " +
          "'rredcot-both-l1' (v̂ = I + V, signed L1), each σ by `sigma.<method>`, aligned; 'rredcot-own' (estimator `rredcotOwn`); " +
          "'grail' (σ_t ∝ gradient saliency of each thinking token for the answer, training README); 'verigate' (GRPO where the verifier " +
          "separates the group, else group-normalized future-cumulated step scores: the `rredcot` estimator's segment credits, an intrinsic PRM); " +
          "'verigate-oracle' (the same with the task's step oracle as the PRM: a segment scores 1 before the first uncorrected wrong line, 0 from it on, the answer step by its verifier reward); 'oracle' (the task's step " +
          "oracle: a failed trace's credit −1 on the segment holding its first uncorrected wrong line, 0 elsewhere, σ by `sigma.oracle`); " +
          "'mc' (ΔV_MC credits from `mc`, σ by `sigma.mc`). The paired differences need grpo.",
      ),
    moreTestBeds: z
      .array(testBedSchema)
      .default([])
      .describe(
        'Further starting checkpoints (test beds), each with its own subset of methods, trained with the same seeds and settings ' +
          '(e.g. the "assumptions met" checkpoint as `checkpoint` with every arm, and the embedded one with grpo and the main RREDCoT arms).',
      ),
    seedsPerMethod: z
      .record(z.enum(METHODS), z.number().int().min(1))
      .default({})
      .describe(
        'Per method, at most how many of `seeds` it runs (the first n; all of them when `seeds` has fewer); a method not listed runs every seed.',
      ),
    seeds: z
      .array(seedSchema)
      .min(1)
      .default([1, 2, 3])
      .describe(
        'One run per (method, seed); the seed drives prompt order, sampling and evaluation draws (paired across methods). Distinct integers.',
      ),
    scale: z
      .number()
      .positive()
      .default(1)
      .describe('Multiplies steps, validation.every, validation.problems and evaluation.problems (each rounded, at least 1). > 0.'),
    steps: z
      .number()
      .int()
      .min(1)
      .default(80)
      .describe('Optimizer steps per run (before scale); ~0.7–1.8 s per step on 2 shared cores (the paper: 500 steps).'),
    learningRates: z
      .object(Object.fromEntries(METHODS.map((m) => [m, lr(1e-4, m)])) as Record<Method, ReturnType<typeof lr>>)
      .strict()
      .default({})
      .describe(
        'Per-method peak lr of the methods the search neither tunes nor lets follow another (`search`). The paper (App. 10.3) gives RREDCoT half ' +
          "GRPO's lr (5e-7 vs 1e-6).",
      ),
    referenceSft: z
      .number()
      .min(0)
      .default(0.1)
      .describe("λ of 'grpo-ref-sft' (GRPO loss + λ · reference NLL) when `search.referenceSft` is empty. ≥ 0."),
    search: searchSchema,
    grpo: sharedGrpoSchema
      .default({ promptsPerStep: 8, groupSize: 4, maxNewTokens: 120, importanceSampling: 'sequenceToken' })
      .describe(
        'GRPO hyperparameters shared by all methods (grpoConfigSchema in @rred/training): 8 prompts × G = 4, ≤ 120 new tokens, GSPO-token ratios (sequence-level ratio values, Sec. 4, with per-token gradients so σ acts), loss grpo, no KL, ' +
          'μ = numIterations = 1: then every ratio is exactly 1 and clipping never acts (token-level REINFORCE with a group baseline); μ = 2 makes clipping act.',
      ),
    optimizer: optimizerConfigSchema
      .omit({ lr: true })
      .default({ warmupSteps: 4, minLrRatio: 0.1, weightDecay: 0 })
      .describe('AdamW + linear warmup / cosine decay shared by all methods (lr is per method).'),
    data: z
      .object({
        datasetSeed: seedSchema
          .default(DEFAULT_DATASET_SEED)
          .describe(`buildDatasets seed of the train prompts (${DEFAULT_DATASET_SEED}: the committed splits).`),
        trainProblems: z.number().int().min(1).default(2000).describe('Train-split problems the prompts are drawn from.'),
      })
      .strict()
      .default({})
      .describe('Training prompts (train split; validation and eval splits are the committed JSONL files).'),
    segmentation: SegmentationConfigSchema.default({ strategy: 'hybrid', maxSegments: 8 }).describe(
      'Exit points of each rollout for RREDCoT (Sec. 3.1): hybrid keyword-entropy, K ≤ 8 (rollouts have ~5–8 lines).',
    ),
    rredcot: rredcotConfigSchema
      .default({ ...rredcotPresets.dataset, terms: 'value', exit: 'forced', valueSuffix: 'softStart', space: 'prob', maxReferences: 4 })
      .describe(
        "Estimator of methods 'rredcot', 'sigma-shuffle', 'rredcot-literal', 'rredcot-l1' and of VeriGate's step scores: dataset references, v̂ = V (Eq. 9; exit unused), " +
          "value suffix 'softStart' (no alignment: the gold benchmark's best alignment-free variant, docs/method.md), prob space, at most 4 of the up to 9 listed " +
          'solution orders (N of Eq. 9). Its `normalization` is not used for training (σ comes from `sigma`).',
      ),
    rredcotOracle: rredcotConfigSchema
      .default({ ...rredcotPresets.dataset, terms: 'value', exit: 'forced', valueSuffix: 'remaining', space: 'prob', maxReferences: 4 })
      .describe(
        "Estimator of method 'rredcot-oracle-aligned': `rredcot` with value suffix 'remaining', which reads the task's alignment (an upper " +
          'bound no real chain of thought allows; the committed comparison f12bee993e08 trained this as `rredcot`).',
      ),
    rredcotBoth: rredcotConfigSchema
      .default({
        ...rredcotPresets.dataset,
        terms: 'immediatePlusValue',
        exit: 'joint',
        valueSuffix: 'remaining',
        space: 'prob',
        maxReferences: 4,
      })
      .describe(
        "Estimator of methods 'rredcot-both' and 'rredcot-both-l1' (the I + V row of the terms × normalization 2×2): `rredcot` with v̂ = I + V " +
          '(Eq. 7 + Eq. 9) and exit joint. Its `normalization` is not used for training.',
      ),
    rredcotOwn: rredcotConfigSchema
      .default({ ...rredcotPresets.own })
      .describe(
        "Estimator of method 'rredcot-own': the Tab. 2 preset (the group's own correct answers, v̂ = I, log space). With v̂ = I only, the own " +
          'correct answers reduce to the dataset answer y*: own references say something only with the value term on a test bed whose correct ' +
          'traces differ from the dataset reference (composite answers, alternative orders).',
      ),
    sigma: z
      .object({
        rredcot: sigmaOf('rredcot', 'aligned'),
        'rredcot-oracle-aligned': sigmaOf('rredcot-oracle-aligned', 'aligned'),
        'sigma-shuffle': sigmaOf('sigma-shuffle (before the permutation)', 'aligned'),
        'signed-position': sigmaOf('signed-position', 'aligned'),
        'rredcot-literal': sigmaOf('rredcot-literal', 'literal'),
        'rredcot-l1': sigmaOf('rredcot-l1', 'aligned', 'L1'),
        'rredcot-both': sigmaOf('rredcot-both', 'aligned'),
        'rredcot-both-l1': sigmaOf('rredcot-both-l1', 'aligned', 'L1'),
        'rredcot-own': sigmaOf('rredcot-own', 'aligned'),
        oracle: sigmaOf('oracle', 'aligned'),
        mc: sigmaOf('mc', 'aligned'),
      })
      .strict()
      .default({})
      .describe(
        'σ of each credit method (sign handling, normalization, standardization, τ; recipes README). Runs stored before this field existed ' +
          "used 'literal' sign handling and the estimator's own normalization (raw credits, no length prior); the loader reads them so.",
      ),
    mc: mcConfigSchema
      .default({ samplesPerExitPoint: 2, maxNewTokens: 108, horizon: 'completion', batchSize: 128 })
      .describe(
        "Truncated MC of method 'mc' (VinePPO-like credit ΔV_MC with a few continuations per exit point): n = 2 per exit point, " +
          "horizon 'completion' with M = 108 (a continuation from s_k ends where a rollout would: the 160-token context minus the longest training " +
          'prompt, 52 tokens; prompt + M must fit the context), 128 per sampling batch.',
      ),
    validation: z
      .object({
        every: z.number().int().min(1).default(5).describe('Validate every N steps (and at step 0 and the last step).'),
        problems: z.number().int().min(1).default(64).describe('First N problems of the validation split.'),
        samplesPerProblem: z.number().int().min(1).default(4).describe('k of the validation avg@k, T = 1 (App. 10.3: avg@4).'),
      })
      .strict()
      .default({})
      .describe('Learning curve: validation avg@k vs step and vs training wall time; picks the best checkpoint.'),
    evaluation: z
      .object({
        splits: z
          .array(z.enum(EVAL_SPLITS))
          .min(1)
          .default([...EVAL_SPLITS])
          .describe('Held-out splits of the final table.'),
        problems: z.number().int().min(1).default(64).describe('First N problems of each split (× samplesPerProblem samples).'),
        samplesPerProblem: z.number().int().min(1).default(8).describe('k of avg@k, T = 1 (App. 10.3: avg@8).'),
        batchSize: z.number().int().min(1).default(128).describe('Completions sampled per batch (validation too).'),
      })
      .strict()
      .default({})
      .describe('avg@k at the final and at the best (by validation) checkpoint of every run.'),
    confidence: z.number().gt(0).lt(1).default(0.95).describe('Level of the Student-t interval of the mean over seeds.'),
  })
  .strict();

export type FinetuneConfig = z.infer<typeof finetuneConfigSchema>;

/** Cross-field checks of the experiment's own fields (the GRPO ones run inside the `grpo` schema), each message naming the values involved. */
export function finetuneConfigIssues(c: FinetuneConfig): string[] {
  const issues: string[] = [];
  if (new Set(c.seeds).size !== c.seeds.length) issues.push(`seeds: ${JSON.stringify(c.seeds)} has repeats; each seed must be distinct`);
  if (new Set(c.methods).size !== c.methods.length) issues.push(`methods: ${JSON.stringify(c.methods)} has repeats`);
  const beds = [c.checkpoint, ...c.moreTestBeds.map((b) => b.checkpoint)];
  if (new Set(beds.map(checkpointName)).size !== beds.length)
    issues.push(
      `moreTestBeds: checkpoints ${JSON.stringify(beds)} repeat a name (${beds.map(checkpointName).join(', ')}); each test bed must differ`,
    );
  c.moreTestBeds.forEach((b, i) => {
    if (new Set(b.methods).size !== b.methods.length) issues.push(`moreTestBeds[${i}].methods: ${JSON.stringify(b.methods)} has repeats`);
  });
  const run = new Set([...c.methods, ...c.moreTestBeds.flatMap((b) => b.methods)]);
  const absent = c.search.methods.filter((m) => !run.has(m));
  if (absent.length) issues.push(`search.methods: ${JSON.stringify(absent)} run on no test bed (methods, moreTestBeds[].methods)`);
  if (c.search.methods.includes('grpo-ref-sft'))
    issues.push("search.methods: 'grpo-ref-sft' takes its lr from the method it follows; its λ is searched by search.referenceSft");
  if (c.search.referenceSft.length > 0 && !run.has('grpo-ref-sft'))
    issues.push(`search.referenceSft: ${JSON.stringify(c.search.referenceSft)} but no test bed runs 'grpo-ref-sft'`);
  if ((c.search.methods.length > 0 || c.search.referenceSft.length > 0) && c.search.seeds > c.seeds.length)
    issues.push(`search.seeds: ${c.search.seeds} is more than the ${c.seeds.length} seeds`);
  for (const [key, values] of [
    ['search.learningRates', c.search.learningRates],
    ['search.referenceSft', c.search.referenceSft],
  ] as const)
    if (new Set(values).size !== values.length) issues.push(`${key}: ${JSON.stringify(values)} has repeats`);
  if (new Set(c.evaluation.splits).size !== c.evaluation.splits.length)
    issues.push(`evaluation.splits: ${JSON.stringify(c.evaluation.splits)} has repeats`);
  return issues;
}

export const FINETUNE_ALIASES: Record<string, string> = {};
