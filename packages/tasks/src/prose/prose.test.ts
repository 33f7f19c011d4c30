import { Rng } from '@rred/core';
import { DEFAULT_DATASET_SEED, buildDatasets, problemFromRecord } from '../build';
import { OPERATORS } from '../config';
import { readJsonl, writeJsonl } from '../dataset';
import { isValidOrder } from '../orders';
import { answerOf, parseProblem } from '../problem';
import { referenceTokens } from '../references';
import { recordAlignment, recordFirstError } from '../record-oracle';
import { rewriteReference } from '../rewrite';
import { sftConfig } from '../sft';
import { buildProseDatasets, proseRecord } from './build';
import { proseFirstUncorrectedError, proseRemainingAlignment, proseSubgoal } from './oracle';
import { parseProseLine } from './parse';
import { proseProblemText, proseReference, prosePieces } from './render';
import { proseMix, proseSftExamples } from './sft';
import { PHRASING_BARS, phrasingVariety } from './variety';
import { CORRECTION_PREFIXES, RESTATE_TEMPLATES, STEP_TEMPLATES, fill, lowerFirstWord } from './templates';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';

const PROBLEM = parseProblem('a=4+3;b=a+8;c=9+7;d=c+b;e=d-a;f=e+b;?f', 10);

describe('prose rendering', () => {
  it('writes the problem as sentences and the reference in the Step style', () => {
    expect(proseProblemText(PROBLEM)).toBe(
      'Let a be 4 plus 3. Let b be a plus 8. Let c be 9 plus 7. Let d be c plus b. Let e be d minus a. Let f be e plus b. What is f?',
    );
    expect(proseReference(PROBLEM, [0, 2, 1, 3, 4, 5]).split('\n').slice(0, 3)).toEqual([
      'Step 1. a = 4 + 3 = 7.',
      'Step 2. c = 9 + 7 = 6.',
      'Step 3. b = 7 + 8 = 5.',
    ]);
  });

  it('reads back every step template (plain and after every correction opening), restatement and reference line', () => {
    for (const op of OPERATORS) {
      STEP_TEMPLATES[op].forEach((t, template) => {
        const text = fill(t, { x: 'c', l: 7, r: 8, v: 5 });
        expect(parseProseLine(text)).toEqual({ kind: 'step', op, template, correction: null, variable: 'c', left: 7, right: 8, value: 5 });
        CORRECTION_PREFIXES.forEach((p, correction) => {
          const line = fill(p, { x: 'c' }) + lowerFirstWord(text);
          expect(parseProseLine(line)).toMatchObject({ kind: 'step', op, template, correction, variable: 'c', value: 5 });
        });
      });
    }
    RESTATE_TEMPLATES.forEach((t, template) =>
      expect(parseProseLine(fill(t, { x: 'e', deps: 'd and a' }))).toEqual({ kind: 'restate', template, variable: 'e' }),
    );
    expect(parseProseLine('Step 4. d = 6 + 5 = 1.')).toMatchObject({ kind: 'reference', step: 4, variable: 'd', value: 1 });
    // a repeated placeholder must repeat; a redo opening names the corrected variable; other text is no line
    expect(parseProseLine('c = 7 + 8, so d is 5.')).toBeNull();
    expect(parseProseLine('Wait, let me redo d: c is 7 plus 8, which is 5.')).toBeNull();
    expect(parseProseLine('c=7+8=5')).toBeNull();
    expect(parseProseLine('c is 7 plus 8, which is')).toBeNull();
  });

  it('has a piece for every word, so a sentence is a handful of tokens', () => {
    const pieces = prosePieces();
    expect(new Set(pieces).size).toBe(pieces.length);
    for (const w of [' plus', ' minus', 'Adding', ' adding', 'Step', ' 7', ' c', '\n', 'Wait']) expect(pieces).toContain(w);
  });
});

describe('prose SFT examples', () => {
  const problems = buildDatasets(7, { train: 300, validation: 0, 'eval-easy': 0, 'eval-medium': 0, 'eval-hard': 0 }).train.map(
    problemFromRecord,
  );
  const mix = sftConfig({ alternativeOrderRate: 0.6, errorLineLoss: 'mask', earlyExitRate: 0.25 });
  const examples = proseSftExamples(problems, mix, proseMix({}), new Rng(3));

  it('is a function of the seed', () => {
    expect(proseSftExamples(problems.slice(0, 20), mix, proseMix({}), new Rng(3))).toEqual(examples.slice(0, 20));
    expect(proseSftExamples(problems.slice(0, 20), mix, proseMix({}), new Rng(4))).not.toEqual(examples.slice(0, 20));
  });

  it('writes every line in a template, the steps in a valid order, and says the true answer', () => {
    examples.forEach((e, i) => {
      const lines = e.thinking.split('\n').filter((l) => l.length > 0);
      const parsed = lines.map(parseProseLine);
      expect(parsed.every((p) => p !== null && p.kind !== 'reference')).toBe(true);
      expect(e.answer).toBe(answerOf(problems[i]));
      if (e.earlyExit) return;
      const order = parsed.flatMap((p) => (p?.kind === 'step' && p.correction === null ? [p.variable.charCodeAt(0) - 97] : []));
      expect(isValidOrder(problems[i], order)).toBe(true);
      expect(e.alternativeOrder).toBe(order.some((v, k) => v !== k));
      // a corrected example has one wrong line, which the oracle finds corrected; without the correction it is the first error
      expect(proseFirstUncorrectedError(problems[i], e.thinking)).toBeNull();
      if (e.errorSpan) {
        const [start, end] = e.errorSpan;
        const cut = e.thinking.slice(0, end);
        expect(proseFirstUncorrectedError(problems[i], cut)).toMatchObject({ start, end });
        expect(e.untrainedSpans).toEqual([e.errorSpan]);
      }
    });
    const kinds = new Set(examples.map((e) => e.kind));
    expect(kinds).toEqual(new Set(['canonical', 'alternative', 'corrected']));
    expect(examples.some((e) => e.thinking.split('\n').some((l) => parseProseLine(l)?.kind === 'restate'))).toBe(true);
  });

  it('uses at least 4 templates of every kind of line', () => {
    const seen = new Map<string, Set<number>>();
    const add = (kind: string, t: number) => seen.set(kind, (seen.get(kind) ?? new Set()).add(t));
    for (const e of examples)
      for (const l of e.thinking.split('\n')) {
        const p = parseProseLine(l);
        if (p?.kind === 'step') add(p.op, p.template);
        if (p?.kind === 'step' && p.correction !== null) add('correction', p.correction);
        if (p?.kind === 'restate') add('restate', p.template);
      }
    for (const kind of ['+', '-', 'correction', 'restate']) expect(seen.get(kind)?.size ?? 0).toBeGreaterThanOrEqual(4);
  });
});

describe('prose oracle and alignment', () => {
  it('finds a wrong line, lets a later wait line correct it, and skips restatements', () => {
    const thinking = [
      'a is 4 plus 3, which is 7.',
      'We still need b, which uses a.',
      'Adding 8 to 7 gives b = 6.',
      'Now c: 9 + 7 = 6.',
    ].join('\n');
    expect(proseFirstUncorrectedError(PROBLEM, thinking)).toMatchObject({ line: 2, kind: 'wrong-result', variable: 'b' });
    expect(proseFirstUncorrectedError(PROBLEM, `${thinking}\nWait, no: adding 8 to 7 gives b = 5.`)).toBeNull();
    expect(proseFirstUncorrectedError(PROBLEM, 'a is 4 plus 3, which is')).toMatchObject({ kind: 'malformed' });
  });

  it('keeps the reference lines whose variable the thinking has not reached', () => {
    const codec = {
      encode: (t: string) => Array.from(t, (c) => c.charCodeAt(0)),
      decode: (ids: readonly number[]) => String.fromCharCode(...ids),
    };
    const reference = proseReference(PROBLEM, [0, 1, 2, 3, 4, 5]);
    const thinking = 'Now c: 9 + 7 = 6.\nWe still need a, which uses d.\na = 4 + 3, so a is 7.\n';
    const rest = codec.decode(proseRemainingAlignment(codec)(codec.encode(thinking), codec.encode(reference)));
    expect(rest.split('\n').map(proseSubgoal)).toEqual(['b', 'd', 'e', 'f']);
    expect(rest.startsWith('Step 2. b = 7 + 8 = 5.')).toBe(true);
  });
});

describe('prose datasets', () => {
  it('are the task splits in prose: same problems and answers, Step-style references, readable back', () => {
    const plain = buildDatasets(11, { train: 5, validation: 3, 'eval-easy': 3, 'eval-medium': 3, 'eval-hard': 3 });
    const prose = buildProseDatasets(11, { train: 5, validation: 3, 'eval-easy': 3, 'eval-medium': 3, 'eval-hard': 3 });
    const record = prose['eval-medium'][1];
    expect(record).toEqual(proseRecord(plain['eval-medium'][1]));
    expect(record.answer).toBe(plain['eval-medium'][1].answer);
    expect(problemFromRecord(record)).toEqual(problemFromRecord(plain['eval-medium'][1]));
    expect(record.solution.split('\n').every((l) => parseProseLine(l)?.kind === 'reference')).toBe(true);
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'prose-'));
    try {
      writeJsonl(path.join(dir, 'x.jsonl'), prose['eval-medium']);
      expect(readJsonl(path.join(dir, 'x.jsonl'))).toEqual(prose['eval-medium']);
      // a prose record whose answer contradicts its notation is refused like any task record
      writeJsonl(path.join(dir, 'bad.jsonl'), [{ ...record, answer: String((Number(record.answer) + 1) % 10) }]);
      expect(() => readJsonl(path.join(dir, 'bad.jsonl'))).toThrow(/bad\.jsonl:1: field 'answer'/);
    } finally {
      fs.rmSync(dir, { recursive: true });
    }
    // references beyond the listed ones are recomputed in the same style
    const many = referenceTokens({ ...record, meta: { ...record.meta, alternativeSolutions: [] } }, { encode: (t) => [t.length] }, 3);
    const listed = referenceTokens(record, { encode: (t) => [t.length] }, 3);
    expect(many).toEqual(listed);
  });
});

describe('committed free-form splits', () => {
  it('are what `npx nx run tasks:datasets-free-form` writes from DEFAULT_DATASET_SEED', () => {
    const built = buildProseDatasets(DEFAULT_DATASET_SEED, { train: 0 });
    for (const split of ['validation', 'eval-easy', 'eval-medium', 'eval-hard'] as const) {
      const file = path.join(__dirname, '..', '..', 'data', 'free-form', `${split}.jsonl`);
      expect(readJsonl(file)).toEqual(built[split]);
    }
  });
});

describe('prose records through the record-level oracle, alignment and stress rewrites', () => {
  const record = proseRecord(
    buildDatasets(11, { train: 0, validation: 0, 'eval-easy': 0, 'eval-medium': 1, 'eval-hard': 0 })['eval-medium'][0],
  );
  const plain = { ...record, problem: record.meta.notation as string, meta: { ...record.meta, format: undefined } };

  it('dispatches on the record format', () => {
    const first = record.solution.split('\n')[0].replace(/= (\d+)\.$/, (_, v: string) => `= ${(Number(v) + 1) % 10}.`);
    expect(recordFirstError(record, first)).toMatchObject({ line: 0, kind: 'wrong-result' });
    expect(recordFirstError(record, record.solution)).toBeNull();
    expect(recordFirstError(plain, record.solution)).toMatchObject({ kind: 'malformed' }); // notation oracle cannot read prose
    const codec = {
      encode: (t: string) => Array.from(t, (c) => c.charCodeAt(0)),
      decode: (ids: readonly number[]) => String.fromCharCode(...ids),
    };
    const rest = recordAlignment(record, codec)(codec.encode(''), codec.encode(record.solution));
    expect(codec.decode(rest)).toBe(record.solution);
  });

  it('rewrites a prose reference in its own style', () => {
    const swapped = rewriteReference(record, 'swap');
    expect(swapped.solution.split('\n').every((l) => parseProseLine(l)?.kind === 'reference')).toBe(true);
    const reordered = rewriteReference(record, 'reorder');
    expect(reordered.solution.split('\n').map((l, i) => l.startsWith(`Step ${i + 1}. `))).not.toContain(false);
    expect(recordFirstError(record, reordered.solution)).toBeNull();
    expect(recordFirstError(record, swapped.solution)).toBeNull();
  });
});

describe('phrasing variety', () => {
  const records = buildProseDatasets(5, { train: 0, validation: 0, 'eval-easy': 0, 'eval-medium': 60, 'eval-hard': 0 })['eval-medium'];
  const problems = records.map(problemFromRecord);

  it('counts templates per kind and traces ordered otherwise than the reference', () => {
    const mix = sftConfig({ alternativeOrderRate: 0.6, errorRate: 0.5 });
    const examples = proseSftExamples(problems, mix, proseMix({ restateRate: 0.5 }), new Rng(2));
    const v = phrasingVariety(examples.map((e, i) => ({ record: records[i], thinking: e.thinking })));
    expect(v.traces).toBe(60);
    for (const kind of ['+', '-', 'restate', 'correction'])
      expect(v.templates[kind]).toBeGreaterThanOrEqual(PHRASING_BARS.templatesPerKind);
    expect(v.unreadLineShare).toBe(0);
    const reordered = examples.filter((e) => e.alternativeOrder).length / examples.length;
    expect(v.reorderedShare).toBeCloseTo(reordered, 10);
    expect(v.reorderedShare).toBeGreaterThan(0.3);
  });

  it('sees one template, no reordering and unread lines for the reference style itself', () => {
    const v = phrasingVariety(records.map((record) => ({ record, thinking: `${record.solution}\nc=1+2=3` })));
    expect(v.templates).toEqual({ '+': 0, '-': 0, restate: 0, correction: 0 });
    expect(v.reorderedShare).toBe(0);
    expect(v.unreadLineShare).toBeGreaterThan(0.8);
  });
});
