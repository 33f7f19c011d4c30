import * as path from 'node:path';
import { Rng } from '@rred/core';
import { rredcot } from '@rred/estimators';
import { buildTrace, type SampleOptions } from '@rred/lm';
import { segment, segmentationConfig } from '@rred/segmentation';
import { answerOf, loadDataset, loadHfTokenizer, modelFamily, promptText, tokenSpans, tokenText, verifyMath } from '@rred/text';
import { describeLlama, exportedEmbedded } from '../testing';
import { ggufTokenizer } from './gguf-tokenizer';
import { LlamaLM } from './llama-lm';

const TEXT = path.resolve(__dirname, '..', '..', 'text');

describeLlama('end to end: GSM8K / MATH fixtures → tokenizer.json → segmentation → RREDCoT on the GGUF model', () => {
  let llama: LlamaLM;
  beforeAll(async () => {
    llama = await LlamaLM.load({ modelPath: await exportedEmbedded(), threads: 1 });
  });
  afterAll(() => llama?.dispose());

  it("the GGUF's own vocabulary (through the binding) tokenizes as the tokenizer.json fixture does", async () => {
    const hf = loadHfTokenizer(path.join(TEXT, 'fixtures', 'rred-tokenizer', 'tokenizer.json'));
    const gguf = await ggufTokenizer(llama);
    const text = '<bos>a=4+3;b=a+8;?b<think>a=4+3=7\nb=7+8=5\n</think>5<eos>';
    expect(gguf.encode(text)).toEqual(hf.encode(text));
    expect(gguf.decode(hf.encode(text))).toBe(text);
    expect(gguf.vocabSize).toBe(hf.vocabSize);
    for (let id = 0; id < hf.vocabSize; id++) expect(gguf.tokenBytes(id)).toEqual(hf.tokenBytes(id));
    expect([gguf.tokenId('</think>'), gguf.tokenId('7')]).toEqual([hf.tokenId('</think>'), hf.tokenId('7')]);
  });

  it('runs all 24 records: prompt from the chat template, sampled trace mapped back exactly, verified, segmented, credited', async () => {
    const hf = loadHfTokenizer(path.join(TEXT, 'fixtures', 'rred-tokenizer', 'tokenizer.json'));
    const family = modelFamily('rred');
    const records = [
      ...(await loadDataset(path.join(TEXT, 'fixtures', 'gsm8k.jsonl'), 'gsm8k')),
      ...(await loadDataset(path.join(TEXT, 'fixtures', 'math.parquet'), 'math')),
    ];
    expect(records).toHaveLength(24);
    const endThink = hf.tokenId(family.endThink)!;
    const eos = hf.tokenId(family.eos)!;
    const prompts = records.map((r) => hf.encode(promptText(family, r.problem, hf.chatTemplate)));
    const options: SampleOptions = { temperature: 1, topP: 1, maxNewTokens: 100, stopToken: eos };
    const { results } = await llama.sample(prompts, options, new Rng(3));
    let credited = 0;
    let correct = 0;
    for (const [i, r] of records.entries()) {
      const sample = results[i];
      const { text, spans } = tokenSpans(hf, sample.tokens);
      expect(text).toBe(hf.decode(sample.tokens));
      const close = sample.tokens.indexOf(endThink);
      const answer = close < 0 ? null : answerOf(family, hf.decode(sample.tokens.slice(close + 1)));
      const reward = answer === null || sample.truncated ? 0 : verifyMath(answer, r.answer).reward;
      correct += reward;
      const trace = buildTrace(
        { endThink, decode: (ids) => hf.decode(ids) },
        { problemId: r.id, prompt: prompts[i], sample, answer, reward },
      );
      const segments = segment(trace, segmentationConfig({ strategy: 'hybrid', markers: family.markers, maxSegments: 6 }), tokenText(hf));
      if (segments.length === 0) continue;
      // the segments' texts tile the thinking text exactly
      const thinking = text.slice(0, trace.thinkEnd === 0 ? 0 : spans[trace.thinkEnd - 1][1]);
      expect(segments.map((s) => text.slice(spans[s.start][0], spans[s.end - 1][1])).join('')).toBe(thinking);
      const inputs = {
        tokens: { endThink, eos, newline: hf.tokenId('\n')! },
        references: { dataset: [{ solution: hf.encode(r.solution), answer: hf.encode(r.answer) }] },
      };
      const result = await rredcot(llama, trace, segments, inputs, { terms: 'immediatePlusValue', valueSuffix: 'full' });
      if (result.fallback === 'overlong') continue; // the reference suffix after a long trace does not fit the 160-token context
      expect(result.credits).toHaveLength(segments.length);
      expect(result.credits.every(Number.isFinite)).toBe(true);
      expect(result.sigma!.reduce((a, b) => a + Math.abs(b), 0)).toBeCloseTo(1, 6);
      credited++;
    }
    process.stderr.write(
      `end to end: ${records.length} fixture records, ${correct} answered correctly, ${credited} credited by RREDCoT on llama.cpp\n`,
    );
    expect(credited).toBeGreaterThanOrEqual(12);
  });
});
