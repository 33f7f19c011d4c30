import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { Rng } from '@rred/core';
import { initEngine, tf } from '@rred/engine';
import { saveCheckpoint } from './checkpoint';
import { Tokenizer } from './tokenizer';
import { createTransformer } from './transformer';
import { TransformerLM } from './transformer-lm';
import type { LanguageModel } from './types';

describe('TransformerLM', () => {
  const tokenizer = Tokenizer.fromAlphabet('0123456789+=');
  let lm: TransformerLM;
  let dir: string;
  beforeAll(async () => {
    await initEngine({ quiet: true });
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'lm-'));
    const model = createTransformer(
      { vocabSize: tokenizer.vocabSize, contextLength: 32, dModel: 16, nLayers: 2, nHeads: 2, dFF: 32 },
      new Rng(2),
    );
    saveCheckpoint(path.join(dir, 'm.ckpt'), { tokenizer, transformer: model });
    model.dispose();
    lm = TransformerLM.fromCheckpoint(path.join(dir, 'm.ckpt'));
  });
  afterAll(() => {
    lm.dispose();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('serves a loaded checkpoint through the LanguageModel interface', async () => {
    const model: LanguageModel = lm;
    expect(model.vocabSize).toBe(tokenizer.vocabSize);
    expect(model.maxLength).toBe(32);
    const prompt = tokenizer.encode('<bos>1+2=<think>');
    const before = tf.memory().numTensors;
    const { results } = await model.sample(
      [prompt, prompt],
      { temperature: 1, topP: 1, maxNewTokens: 8, stopToken: tokenizer.eos },
      new Rng(1),
    );
    const sequence = [...prompt, ...results[0].tokens];
    const scored = await model.scoreAfterPrefixes(sequence, [{ exitAt: prompt.length, suffix: results[0].tokens }]);
    // The sampler's temperature-1 logprobs are the scorer's logprobs of the same tokens.
    scored.logprobs[0].forEach((lp, j) => expect(Math.abs(lp - results[0].logprobs[j])).toBeLessThan(1e-4));
    const { norms } = await model.embeddingGradientNorms(sequence, prompt.length);
    expect(norms).toHaveLength(sequence.length);
    expect(tf.memory().numTensors).toBe(before);
  });

  it('rejects a tokenizer that does not fit the model', () => {
    expect(() => new TransformerLM(lm.transformer, Tokenizer.fromAlphabet('01'))).toThrow(
      /tokenizer has 7 tokens but the model's vocabSize is 17/,
    );
  });
});
