/**
 * The free-form bed's committed pretrain configs (stage 1 from scratch, then the stage that writes the
 * registry's checkpoint from it): the last names the registry's outputs, and the corpus each stage trains
 * on (built by pretrainData, as the pretrain command builds it) never holds a line in the reference style,
 * fits the context, and is tokenized into word pieces.
 */
import * as path from 'path';
import { Rng, parseConfig, readJsonFile, repoRoot } from '@rred/core';
import { EMBEDDED_CHECKPOINTS } from '@rred/lm';
import { promptTokens } from '@rred/tasks';
import { pretrainConfigSchema } from './pretrain';
import { pretrainData } from '../pretrain-data';

const FILE = path.join(repoRoot(), EMBEDDED_CHECKPOINTS.freeForm.pretrainConfig);
const config = parseConfig(pretrainConfigSchema, readJsonFile(FILE), FILE);
const STAGE1 = FILE.replace(/\.pretrain\.json$/, '.stage1.pretrain.json');
const stage1 = parseConfig(pretrainConfigSchema, readJsonFile(STAGE1), STAGE1);

describe('free-form.pretrain.json', () => {
  it('trains the prose bed into the registry entry freeForm', () => {
    expect(config.data.format).toBe('prose');
    expect(config.output.checkpoint).toBe(EMBEDDED_CHECKPOINTS.freeForm.checkpoint);
    expect(config.output.runRecord).toBe(EMBEDDED_CHECKPOINTS.freeForm.runRecord);
    expect(config.initCheckpoint).toBe(stage1.output.checkpoint);
    expect(stage1.data.format).toBe('prose');
    expect(() => parseConfig(pretrainConfigSchema, { data: { format: 'prose', mix: { compositeRate: 0.5 } } }, 'x.json')).toThrow(
      /data\.mix\.compositeRate.*'prose'/,
    );
  });

  it.each([
    ['stage 1', stage1],
    ['the final stage', config],
  ])("%s trains on a corpus that never holds the references' style, fits the context and is word pieces", (_, config) => {
    // the config's own seed fork, as pretrain draws it; two epochs of the (epoch-refreshed) corpus
    const { tokenizer, splits, corpus } = pretrainData(config, new Rng(config.seed).fork('corpus'));
    const text = (ids: number[]) => tokenizer.decode(ids);
    let longest = 0;
    let chars = 0;
    let tokens = 0;
    for (const epoch of [0, 1]) {
      for (let i = 0; i < corpus.size; i++) {
        const ex = corpus.example(epoch, i);
        const completion = text(ex.completion);
        expect(completion).not.toMatch(/Step/);
        longest = Math.max(longest, ex.prompt.length + ex.completion.length - 1);
        chars += completion.length;
        tokens += ex.completion.length;
      }
    }
    expect(longest).toBeLessThanOrEqual(config.model.contextLength);
    expect(chars / tokens).toBeGreaterThan(2.2); // words are single tokens, not spelled out (a character tokenizer: 1)
    // every reference line of the held-out splits is in the Step style the corpus lacks
    for (const r of splits['eval-medium'].slice(0, 50)) {
      for (const line of r.solution.split('\n')) expect(line).toMatch(/^Step \d+\. [a-z] = \d+ [+\-*] \d+ = \d+\.$/);
      expect(promptTokens(tokenizer, r.problem).length).toBeLessThan(80);
    }
  });
});
