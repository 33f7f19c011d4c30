/** OPTIONAL value-head baseline on a real (small, random) Transformer. */
import { Rng } from '@rred/core';
import { initEngine, tf } from '@rred/engine';
import { createTransformer, Tokenizer, type Transformer, type Trace } from '@rred/lm';
import { exitPointFeatures, fitValueHead, transformerHiddenStates, valueHeadEstimate } from '@rred/estimators/value-head';

describe('value head on Transformer hidden states', () => {
  const tokenizer = Tokenizer.fromAlphabet('0123456789+=');
  const tokens = { endThink: tokenizer.endThink, eos: tokenizer.eos };
  let transformer: Transformer;
  beforeAll(async () => {
    await initEngine({ quiet: true });
    transformer = createTransformer(
      { vocabSize: tokenizer.vocabSize, contextLength: 32, dModel: 16, nLayers: 2, nHeads: 2, dFF: 32 },
      new Rng(8),
    );
  });
  afterAll(() => transformer.dispose());

  it("hidden states are the ones the model's own logits come from (head(h) = logits, 1e-4)", async () => {
    const sequence = tokenizer.encode('<bos>12+3=<think>15</think>15<eos>');
    const positions = sequence.map((_, i) => i);
    const { states } = await transformerHiddenStates(transformer).hiddenStates(sequence, positions);
    const fromStates = tf.tidy(() => transformer.head(tf.tensor2d(states)).arraySync() as number[][]);
    const direct = tf.tidy(() => (transformer.logits(tf.tensor2d([sequence], undefined, 'int32')).arraySync() as number[][][])[0]);
    fromStates.forEach((row, t) => row.forEach((x, v) => expect(Math.abs(x - direct[t][v])).toBeLessThan(1e-4)));
    // only the requested positions, in the requested order
    const some = await transformerHiddenStates(transformer).hiddenStates(sequence, [5, 2]);
    expect(some.states[0]).toEqual(states[5]);
    expect(some.states[1]).toEqual(states[2]);
  });

  it('fits on exit-point features and estimates credits', async () => {
    const hidden = transformerHiddenStates(transformer);
    const prompt = tokenizer.encode('<bos>1+2=<think>');
    const mk = (thinking: string, answer: string, reward: number): Trace => {
      const completion = tokenizer.encode(`${thinking}</think>${answer}<eos>`);
      return { problemId: 'p', prompt, completion, logprobs: [], entropies: [], thinkEnd: thinking.length, answer, reward, text: '' };
    };
    const traces = [mk('1+2=3', '3', 1), mk('1+2=4', '4', 0), mk('2+1=3', '3', 1), mk('12=5', '5', 0)];
    const segs = [
      { start: 0, end: 2 },
      { start: 2, end: 5 },
    ];
    const feats: number[][] = [];
    const targets: number[] = [];
    for (const t of traces) {
      const s =
        t.thinkEnd === 4
          ? [
              { start: 0, end: 2 },
              { start: 2, end: 4 },
            ]
          : segs;
      const { features } = await exitPointFeatures(hidden, t, s, tokens);
      features.forEach((f) => {
        feats.push(f);
        targets.push(t.reward); // outcome as the target of every exit point (Monte Carlo return)
      });
    }
    const head = fitValueHead(feats, targets, { steps: 300 });
    const res = await valueHeadEstimate(hidden, head, traces[0], segs, tokens);
    expect(res.credits).toHaveLength(2);
    expect(res.values!.every((v) => v > 0 && v < 1)).toBe(true);
    // the last exit point of a correct training trace is predicted above that of a wrong one
    const wrong = await valueHeadEstimate(hidden, head, traces[1], segs, tokens);
    expect(res.values![2]).toBeGreaterThan(wrong.values![2]);
  });
});
