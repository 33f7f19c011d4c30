/**
 * Wall time and token cost of the lm primitives on the default-size model (random weights):
 * cached vs uncached sampling, and prefix-sharing vs naive suffix scoring.
 * Usage: npx tsx packages/lm/scripts/bench-lm.ts [batch=16] [newTokens=96]
 */
import { Rng, runMain } from '@rred/core';
import { initEngine } from '@rred/engine';
import { createTransformer, Tokenizer, TransformerLM, type SuffixRequest } from '@rred/lm';

runMain(async () => {
  const [B, N] = [Number(process.argv[2] ?? 16), Number(process.argv[3] ?? 96)];
  const info = await initEngine({ quiet: true });
  const tokenizer = Tokenizer.fromAlphabet('0123456789+-*/=() \nabcdefghijklmnopqrstuvwxyz.,?');
  const rng = new Rng(0);
  const lm = new TransformerLM(createTransformer({ vocabSize: tokenizer.vocabSize }, rng.fork('init')), tokenizer);
  const prompts = Array.from({ length: B }, () => [tokenizer.bos, ...Array.from({ length: rng.int(12, 30) }, () => rng.int(5, tokenizer.vocabSize - 1)), tokenizer.think]);
  // stopToken 0 (pad) is never sampled by a random model in practice: every row runs the full N tokens.
  const options = { temperature: 1, topP: 1, maxNewTokens: N, stopToken: tokenizer.pad };
  const time = async <T>(f: () => Promise<T>): Promise<[T, number]> => {
    const t0 = performance.now();
    const out = await f();
    return [out, performance.now() - t0];
  };
  await lm.sample(prompts.slice(0, 2), { ...options, maxNewTokens: 4 }, new Rng(1)); // warm-up
  const [cached, tc] = await time(() => lm.sample(prompts, options, new Rng(1)));
  const [plain, tp] = await time(() => lm.sampleNoCache(prompts, options, new Rng(1)));
  console.log(`backend ${info.backend}, ${lm.transformer.paramCount} params`);
  console.log(`sample ${B} x ${N} tokens: KV cache ${tc.toFixed(0)} ms (${cached.cost.tokensForwarded} tokens forwarded, ${cached.cost.forwardPasses} passes); ` +
    `no cache ${tp.toFixed(0)} ms (${plain.cost.tokensForwarded} tokens forwarded)`);

  // An RREDCoT-shaped scoring call: trace of ~130 tokens, K = 8 exit points, 4 references of 24 tokens.
  const sequence = [...prompts[0], ...cached.results[0].tokens].slice(0, 130);
  const requests: SuffixRequest[] = [];
  for (let k = 0; k < 8; k++) {
    const exitAt = prompts[0].length + Math.round((k * (sequence.length - prompts[0].length)) / 8);
    for (let j = 0; j < 4; j++) requests.push({ exitAt, suffix: Array.from({ length: 24 }, () => rng.int(5, tokenizer.vocabSize - 1)) });
  }
  await lm.scoreAfterPrefixes(sequence, requests.slice(0, 2));
  const [fast, tf] = await time(() => lm.scoreAfterPrefixes(sequence, requests));
  const [slow, ts] = await time(() => lm.naiveScore(sequence, requests));
  console.log(`score T=${sequence.length}, ${requests.length} suffixes of 24: prefix-sharing ${tf.toFixed(0)} ms (${fast.cost.tokensForwarded} tokens, ${fast.cost.forwardPasses} passes); ` +
    `naive ${ts.toFixed(0)} ms (${slow.cost.tokensForwarded} tokens, ${slow.cost.forwardPasses} passes)`);
  const [grad, tg] = await time(() => lm.embeddingGradientNorms(sequence, prompts[0].length));
  console.log(`embedding gradient norms T=${sequence.length}: ${tg.toFixed(0)} ms (${grad.norms.length} positions)`);
});
