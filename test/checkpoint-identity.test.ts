/**
 * A checkpoint's identity covers its weights, model config and tokenizer. Editing a header
 * field (nHeads, activation, the alphabet) while the weights stay the same gives another hash, and the
 * correlation experiment then refuses the MC traces an mc-variance run recorded for the other model.
 * Before the fix the hash was the weights' sha256 alone: every edit below kept it, and the source run was reused.
 */
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { parseConfig, readJsonFile, Rng } from '@rred/core';
import { initEngine } from '@rred/engine';
import { checkpointHash, createTransformer, readCheckpointHeader, saveCheckpoint, Tokenizer } from '@rred/lm';
import { openStore } from '@rred/results-store';
import { TASK_ALPHABET } from '@rred/tasks';
import { correlationConfigSchema } from '../experiments/src/correlation/config';
import { findSourceRun } from '../experiments/src/correlation/source';
import { ROOT } from './fixtures/run-script';

/** A copy of `file` whose JSON header is replaced by `edit(header)`; the weight bytes are kept as they are. */
function withHeader(file: string, out: string, edit: (header: Record<string, any>) => Record<string, unknown>): string {
  const bytes = fs.readFileSync(file);
  const length = bytes.readUInt32LE(12);
  const header = edit(JSON.parse(bytes.toString('utf8', 16, 16 + length)) as Record<string, any>);
  const json = Buffer.from(JSON.stringify(header), 'utf8');
  const preamble = Buffer.from(bytes.subarray(0, 16));
  preamble.writeUInt32LE(json.length, 12);
  const padding = Buffer.alloc(Math.ceil((16 + json.length) / 4) * 4 - 16 - json.length);
  fs.writeFileSync(out, Buffer.concat([preamble, json, padding, bytes.subarray(Math.ceil((16 + length) / 4) * 4)]));
  return out;
}

describe('checkpoint identity', () => {
  let dir: string;
  let original: string;
  beforeAll(async () => {
    await initEngine({ backend: 'cpu', quiet: true });
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ckpt-identity-'));
    original = path.join(dir, 'model.ckpt');
    const tokenizer = Tokenizer.fromAlphabet(TASK_ALPHABET);
    const model = createTransformer(
      { vocabSize: tokenizer.vocabSize, contextLength: 32, dModel: 16, nLayers: 1, nHeads: 2, dFF: 32 },
      new Rng(3),
    );
    saveCheckpoint(original, { tokenizer, transformer: model, meta: { step: 1 } });
    model.dispose();
  });
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

  const edits: [string, (h: Record<string, any>) => Record<string, unknown>][] = [
    ['nHeads 2 → 4', (h) => ({ ...h, config: { ...h.config, nHeads: 4 } })],
    ['activation gelu → relu', (h) => ({ ...h, config: { ...h.config, activation: 'relu' } })],
    ['alphabet reversed', (h) => ({ ...h, tokenizer: { ...h.tokenizer, alphabet: [...h.tokenizer.alphabet].reverse().join('') } })],
  ];

  it.each(edits)('%s keeps the weights hash but changes the checkpoint hash', (label, edit) => {
    const edited = withHeader(original, path.join(dir, `${label.replace(/\W+/g, '_')}.ckpt`), edit);
    expect(readCheckpointHeader(edited).weightsSha256).toBe(readCheckpointHeader(original).weightsSha256);
    expect(checkpointHash(edited)).toMatch(/^[0-9a-f]{64}$/);
    expect(checkpointHash(edited)).not.toBe(checkpointHash(original));
  });

  it('is the same for the same model: meta is not part of it, nor an implicit default spelled out', () => {
    const meta = withHeader(original, path.join(dir, 'meta.ckpt'), (h) => ({ ...h, meta: { step: 99, note: 'retagged' } }));
    expect(checkpointHash(meta)).toBe(checkpointHash(original));
    const implicit = withHeader(original, path.join(dir, 'implicit.ckpt'), (h) => {
      const { activation, ...config } = h.config as { activation: string };
      expect(activation).toBe('gelu');
      return { ...h, config };
    });
    expect(checkpointHash(implicit)).toBe(checkpointHash(original));
  });

  it('correlation does not reuse the MC traces of a run recorded for another model', () => {
    const edited = withHeader(original, path.join(dir, 'relu.ckpt'), edits[1][1]);
    const store = openStore(path.join(dir, 'store.sqlite'));
    try {
      const mc = store.startRun({
        experiment: 'mc-variance',
        config: { checkpoint: original },
        backend: { backend: 'cpu', openblasThreads: null },
        tags: { checkpointHash: checkpointHash(original) },
      });
      mc.finish();
      const defaults = readJsonFile(path.join(ROOT, 'experiments', 'configs', 'correlation.json'), 'config file') as Record<string, any>;
      const config = (mcRun: string) =>
        parseConfig(correlationConfigSchema, { ...defaults, checkpoint: edited, source: { ...defaults.source, mcRun } }, 'test config');
      // The same model finds its run; the edited one finds none, and naming the run is refused.
      expect(findSourceRun(store, config('latest'), checkpointHash(original))).toBe(mc.id);
      expect(findSourceRun(store, config('latest'), checkpointHash(edited))).toBeNull();
      expect(() => findSourceRun(store, config(mc.id), checkpointHash(edited))).toThrow(/its traces come from checkpoint/);
    } finally {
      store.close();
    }
  });
});
