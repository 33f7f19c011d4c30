/**
 * The value term's `remaining` suffix end to end: the task's subgoal alignment (@rred/tasks) on the
 * real tokenizer (@rred/lm), newline segmentation (@rred/segmentation), and the suffixes that
 * `rredcot` (@rred/estimators) actually sends to the model, on a hand-made trace that takes an
 * alternative order, writes one wrong line and corrects it with `wait`.
 */
import { rredcot } from '@rred/estimators';
import { EnumerableLM } from '@rred/estimators/testing';
import { Tokenizer, type Trace } from '@rred/lm';
import { segment, segmentationConfig } from '@rred/segmentation';
import { COMPOSITE_TASK_ALPHABET, remainingAlignment } from '@rred/tasks';

const tok = Tokenizer.fromAlphabet(COMPOSITE_TASK_ALPHABET);
const tokens = { endThink: tok.endThink, eos: tok.eos };
// a=3+4;b=a-2;c=5+b;d=a+1;?b,d — canonical order a,b,c,d; the trace does a,d,b(wrong),wait b,c
const reference = 'a=3+4=7\nb=7-2=5\nc=5+5=0\nd=7+1=8';
const thinking = 'a=3+4=7\nd=7+1=8\nb=7-2=4\nwait b=7-2=5\nc=5+5=0';

function traceOf(text: string): Trace {
  const completion = tok.encode(`${text}</think>5,8<eos>`);
  const n = completion.length;
  return {
    problemId: 'hand-made',
    prompt: tok.encode('<bos>a=3+4;b=a-2;c=5+b;d=a+1;?b,d<think>'),
    completion,
    logprobs: new Array(n).fill(-0.1),
    entropies: new Array(n).fill(0.5),
    thinkEnd: completion.indexOf(tok.endThink),
    answer: '5,8',
    reward: 1,
    text: '',
  };
}

it("rredcot 'remaining' scores, after each line, the reference lines for the variables not computed yet", async () => {
  const model = new EnumerableLM({ vocabSize: tok.vocabSize, tokens, seed: 3, scale: 1, maxLength: 200 });
  const scored: string[] = [];
  const score = model.scoreAfterPrefixes.bind(model);
  model.scoreAfterPrefixes = async (sequence, requests) => {
    scored.push(...requests.map((r) => tok.decode(r.suffix)));
    return score(sequence, requests);
  };
  const trace = traceOf(thinking);
  const segments = segment(trace, segmentationConfig({ strategy: 'keyword' }), (id) => tok.tokenText(id));
  expect(segments.length).toBe(5); // one per line; 'wait' starts its line, so no extra cut
  const inputs = {
    tokens,
    references: { dataset: [{ solution: tok.encode(reference), answer: tok.encode('5,8') }] },
    alignment: remainingAlignment(tok),
  };
  // sharedPrefix: every exit point's suffix is sent (the default, sharedContinuation, reads the ones that
  // continue another request from it; with the same numbers, tested in the estimators package)
  const res = await rredcot(model, trace, segments, inputs, { terms: 'value', valueSuffix: 'remaining', scoring: 'sharedPrefix' });
  expect(scored).toEqual([
    `${reference}</think>5,8<eos>`, // s_0: nothing done
    'b=7-2=5\nc=5+5=0\nd=7+1=8</think>5,8<eos>', // after a
    'b=7-2=5\nc=5+5=0</think>5,8<eos>', // after d: alternative order, the rest in the reference's order
    'c=5+5=0</think>5,8<eos>', // after the wrong b: b is reached, c keeps the correct value 0
    'c=5+5=0</think>5,8<eos>', // after the correction: the same rest
    '</think>5,8<eos>', // s_K: every subgoal reached
  ]);
  expect(res.extra.logValue).toHaveLength(6);
  // the full suffix (the literal reading) is the whole reference after every prefix
  scored.length = 0;
  await rredcot(model, trace, segments, inputs, { terms: 'value', valueSuffix: 'full' });
  expect(new Set(scored)).toEqual(new Set([`${reference}</think>5,8<eos>`]));
});
