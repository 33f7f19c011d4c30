import { Rng } from '@rred/core';
import { keywordCuts, keywordSegments } from './keyword';
import { KeywordConfigSchema } from './config';
import { TEST_VOCAB, traceFromText } from './test-traces';

const cfg = (over: object = {}) => KeywordConfigSchema.parse({ strategy: 'keyword', ...over });

describe('keyword segmentation', () => {
  const text = 'a=3+4=7\nb=7*2=3\nwait b=7*2=4\nc=1+4=5';
  const trace = traceFromText(text, new Rng(1));

  it('cuts after each newline token', () => {
    // newlines at chars 7, 15, 28 → cuts at 8, 16, 29
    expect(keywordCuts(trace, cfg({ markers: [] }), TEST_VOCAB)).toEqual([8, 16, 29]);
    expect(keywordSegments(trace, cfg({ markers: [] }), TEST_VOCAB)).toEqual([
      { start: 0, end: 8 },
      { start: 8, end: 16 },
      { start: 16, end: 29 },
      { start: 29, end: text.length },
    ]);
  });

  it('cuts before whole-word markers, and only there when newlines are off', () => {
    const t = traceFromText('a=1+1=2 wait a=1+1=2 but waiting abut Wait', new Rng(1));
    // 'wait' at 8, 'but' at 21, 'Wait' at 38 (case-insensitive); 'waiting' and 'abut' are not whole words
    expect(keywordCuts(t, cfg({ newline: false, markers: ['wait', 'but'] }), TEST_VOCAB)).toEqual([8, 21, 38]);
    expect(keywordCuts(t, cfg({ newline: false, markers: ['wait', 'but'], caseSensitive: true }), TEST_VOCAB)).toEqual([8, 21]);
    expect(keywordCuts(t, cfg({ newline: false }), TEST_VOCAB)).toEqual([8, 38]); // default markers: 'wait' only
    // a marker right after a newline gives one cut, not two
    expect(keywordCuts(trace, cfg(), TEST_VOCAB)).toEqual([8, 16, 29]);
  });

  it('maps marker positions to tokens when tokens span several characters', () => {
    const vocab = ['a=1', ' w', 'ait', ' ok', '\n'];
    const t = { ...traceFromText('', new Rng(1)), completion: [0, 1, 2, 3, 4, 0], logprobs: Array(6).fill(-1), entropies: Array(6).fill(1), thinkEnd: 6 };
    // 'wait' begins inside token 1 (' w') → cut before token 1; newline token 4 → cut at 5
    expect(keywordCuts(t, cfg(), vocab)).toEqual([1, 5]);
    expect(keywordCuts(t, cfg(), (i: number) => vocab[i])).toEqual([1, 5]);
    expect(() => keywordCuts({ ...t, completion: [9] , thinkEnd: 1 }, cfg(), vocab)).toThrow(/token id 9 is outside/);
  });

  it('ignores tokens after thinkEnd', () => {
    const t = traceFromText('a=1\nb=2', new Rng(1));
    expect(keywordCuts({ ...t, thinkEnd: 3 }, cfg(), TEST_VOCAB)).toEqual([]);
    expect(keywordCuts({ ...t, thinkEnd: 5 }, cfg(), TEST_VOCAB)).toEqual([4]);
  });

  it('thins extra cuts evenly to stay within K', () => {
    const t = traceFromText('1\n2\n3\n4\n5\n6\n7\n8\n9', new Rng(1));
    // 8 candidate cuts (2,4,...,16); K=3 keeps candidates round(8/3)-1=2 and round(16/3)-1=4 → cuts 6 and 10
    expect(keywordSegments(t, cfg({ maxSegments: 3 }), TEST_VOCAB)).toEqual([
      { start: 0, end: 6 },
      { start: 6, end: 10 },
      { start: 10, end: 17 },
    ]);
  });
});
