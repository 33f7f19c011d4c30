import * as path from 'path';
import { HelpRequested, repoRoot, UserError } from '@rred/core';
import { z } from 'zod';
import { experimentSpec, parseExperimentArgs } from './cli-args';

const schema = z
  .object({
    seed: z.number().default(1).describe('seed'),
    problems: z.number().default(3).describe('problems'),
    mc: z
      .object({ samplesPerExitPoint: z.number().default(20) })
      .strict()
      .default({}),
    seg: z.discriminatedUnion('strategy', [
      z.object({ strategy: z.literal('a'), k: z.number() }).strict(),
      z.object({ strategy: z.literal('b'), len: z.number() }).strict(),
    ]),
  })
  .strict();

describe('experiment flags', () => {
  const spec = experimentSpec('x', schema, { n: 'problems' }, '/nonexistent.json', { summary: 'an experiment' });

  it('parses --config, --store, aliases and JSON values in both --a.b v and --a.b=v forms', () => {
    const a = parseExperimentArgs(
      ['--config', 'c.json', '--n', '10', '--mc.samplesPerExitPoint=5', '--seg.strategy', 'b', '--store=s.db'],
      spec,
    );
    expect(a).toEqual({
      configFile: path.join(repoRoot(), 'c.json'),
      resume: null,
      store: path.join(repoRoot(), 's.db'),
      out: null,
      model: null,
      dataset: null,
      overrides: { problems: 10, 'mc.samplesPerExitPoint': 5, 'seg.strategy': 'b' },
      written: { problems: '10', 'mc.samplesPerExitPoint': '5', 'seg.strategy': 'b' },
    });
  });

  it('rejects unknown paths (listing the valid ones), missing values, stray arguments and repeats', () => {
    expect(() => parseExperimentArgs(['--nope', '1'], spec)).toThrow(
      /unknown flag --nope \(valid: --config, --store, --out, --resume, --model, --model-api, --dataset, --format, --verifier, --help, --seed, --problems \(--n\), --mc,/,
    );
    expect(() => parseExperimentArgs(['--nope', '1'], spec)).toThrow(UserError);
    expect(() => parseExperimentArgs(['--seed'], spec)).toThrow(/--seed needs a value/);
    expect(() => parseExperimentArgs(['10'], spec)).toThrow(/unexpected argument '10'/);
    expect(() => parseExperimentArgs(['--seed', '1', '--seed=2'], spec)).toThrow(/--seed given twice/);
    expect(() => parseExperimentArgs(['--config', 'a.json', '--config', 'b.json'], spec)).toThrow(/--config given twice/);
    expect(() => parseExperimentArgs(['--out', ''], spec)).toThrow(/--out: got '', expected a directory path/);
  });

  it('--model URL [--model-api API] names a served model (default API sglang), --dataset FILE [--verifier MODULE] a problem file; bad values are one-line errors', () => {
    expect(parseExperimentArgs(['--model', 'http://127.0.0.1:30000/'], spec).model).toEqual({
      url: 'http://127.0.0.1:30000',
      api: 'sglang',
    });
    expect(parseExperimentArgs(['--model', 'http://h:1', '--model-api', 'openai'], spec).model).toEqual({
      url: 'http://h:1',
      api: 'openai',
    });
    expect(() => parseExperimentArgs(['--model', 'h:1'], spec)).toThrow(/--model h:1: expected a server URL/);
    expect(() => parseExperimentArgs(['--model', 'http://h:1', '--model-api', 'llamacpp'], spec)).toThrow(
      /--model-api llamacpp: expected sglang or openai/,
    );
    expect(() => parseExperimentArgs(['--model-api', 'openai'], spec)).toThrow(/--model-api openai needs --model URL/);
    expect(parseExperimentArgs(['--dataset', 'd.jsonl', '--verifier', 'v.js'], spec).dataset).toEqual({
      file: path.join(repoRoot(), 'd.jsonl'),
      verifier: path.join(repoRoot(), 'v.js'),
      format: 'jsonl',
    });
    expect(() => parseExperimentArgs(['--verifier', 'v.js'], spec)).toThrow(/--verifier .*v\.js needs --dataset FILE/);
  });

  it('--help describes the shared flags and every config path', () => {
    let help = '';
    try {
      parseExperimentArgs(['--help'], spec);
    } catch (e) {
      expect(e).toBeInstanceOf(HelpRequested);
      help = (e as HelpRequested).text;
    }
    expect(help).toMatch(/^usage: node --import tsx experiments\/src\/x\/main\.ts \[flags\]\n\nan experiment\n/);
    expect(help).toMatch(/--out DIR +where the rendered tables and plots go \(default: results\/x\)/);
    expect(help).toMatch(/--problems, --n +problems \[default: 3\]/);
    expect(help).toMatch(/--mc\.samplesPerExitPoint +\[default: 20\]/);
  });
});
