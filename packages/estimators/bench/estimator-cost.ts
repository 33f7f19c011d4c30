/**
 * Cost of each estimator on the embedded checkpoint, for a few sampled task traces: token-forwards,
 * tokens generated, network invocations and wall time per trace. Shows the prefix-sharing saving of
 * RREDCoT (`sharedPrefix` vs `perExitPoint`). Usage:
 *   npx tsx packages/estimators/bench/estimator-cost.ts [--traces 2] [--segments 8] [--refs 4] [--mc-n 4] [--mc-m 96]
 */
import * as path from 'node:path';
import { Rng, runMain, UserError } from '@rred/core';
import { initEngine } from '@rred/engine';
import { buildTrace, TransformerLM } from '@rred/lm';
import { segment, segmentationConfig } from '@rred/segmentation';
import { generateProblem, generatorConfig, promptText, referenceSolutions, answerOf, verify } from '@rred/tasks';
import { gradientAttribution, leaveOneOut, rredcot, truncatedMc, type EstimatorCost } from '../src';

function arg(name: string, dflt: number): number {
  const i = process.argv.indexOf(`--${name}`);
  if (i < 0) return dflt;
  const v = Number(process.argv[i + 1]);
  if (!Number.isInteger(v) || v < 1) throw new UserError(`--${name}: expected a positive integer, got ${process.argv[i + 1]}`);
  return v;
}

runMain(async () => {
  const nTraces = arg('traces', 2);
  const K = arg('segments', 8);
  const nRefs = arg('refs', 4);
  const mcN = arg('mc-n', 4);
  const mcM = arg('mc-m', 96);
  const backend = await initEngine({ quiet: true });
  const lm = TransformerLM.fromCheckpoint(path.join(__dirname, '../../lm/checkpoints/embedded.ckpt'));
  const tok = lm.tokenizer;
  const tokens = { endThink: tok.endThink, eos: tok.eos };
  const rng = new Rng(1);
  const rows: string[] = [];
  const add = (label: string, c: EstimatorCost, T: number, K: number) =>
    rows.push(`| ${label} | ${T} | ${K} | ${c.tokensForwarded} | ${c.tokensGenerated} | ${c.forwardPasses} | ${c.wallMs} |`);
  for (let i = 0; i < nTraces; i++) {
    const problem = generateProblem(rng.fork(`problem-${i}`), generatorConfig({ minSteps: 4, maxSteps: 5 }));
    const prompt = tok.encode(`<bos>${promptText(problem)}<think>`);
    const { results } = await lm.sample([prompt], { temperature: 1, topP: 1, maxNewTokens: lm.maxLength - prompt.length - 40, stopToken: tok.eos }, rng.fork(`sample-${i}`));
    const text = tok.decode(results[0].tokens);
    const v = verify(text, answerOf(problem), !results[0].truncated);
    const trace = buildTrace(tok, { problemId: `bench-${i}`, prompt, sample: results[0], answer: v.answer, reward: v.reward });
    const segments = segment(trace, segmentationConfig({ strategy: 'hybrid', maxSegments: K }), (id) => tok.tokenText(id));
    const refs = referenceSolutions(problem, nRefs).map((r) => ({ solution: tok.encode(r.solution), answer: tok.encode(r.answer) }));
    const inputs = { tokens, references: { dataset: refs }, reward: (c: number[], stopped: boolean) => verify(tok.decode(c), answerOf(problem), stopped).reward };
    const T = trace.completion.length;
    const k = segments.length;
    add(`rredcot sharedPrefix (N=${refs.length})`, (await rredcot(lm, trace, segments, inputs, { scoring: 'sharedPrefix' })).cost, T, k);
    add(`rredcot perExitPoint (N=${refs.length})`, (await rredcot(lm, trace, segments, inputs, { scoring: 'perExitPoint' })).cost, T, k);
    add('loo', (await leaveOneOut(lm, trace, segments, inputs)).cost, T, k);
    add('gradient', (await gradientAttribution(lm, trace, segments, inputs)).cost, T, k);
    add(`mc n=${mcN} M=${mcM}`, (await truncatedMc(lm, trace, segments, inputs, { samplesPerExitPoint: mcN, maxNewTokens: Math.min(mcM, lm.maxLength - prompt.length - T) }, rng.fork(`mc-${i}`))).cost, T, k);
  }
  console.log(`backend ${JSON.stringify(backend)}\n`);
  console.log('| estimator | completion tokens | K | tokens forwarded | tokens generated | forward passes | wall ms |');
  console.log('|---|---|---|---|---|---|---|');
  for (const r of rows) console.log(r);
  lm.dispose();
});
