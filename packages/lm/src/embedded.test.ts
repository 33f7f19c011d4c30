import * as fs from 'node:fs';
import * as path from 'node:path';
import { repoRoot } from '@rred/core';
import { readCheckpointHeader } from './checkpoint';
import { EMBEDDED_CHECKPOINTS, bedOfCheckpoint, resolveCheckpoint } from './embedded';

describe('checkpoint registry', () => {
  it('resolves a bed by name and leaves a path as it is', () => {
    expect(resolveCheckpoint('freeForm')).toBe('packages/lm/checkpoints/free-form.ckpt');
    expect(resolveCheckpoint('assumptionsMet')).toBe(EMBEDDED_CHECKPOINTS.assumptionsMet.checkpoint);
    expect(resolveCheckpoint('/tmp/x.ckpt')).toBe('/tmp/x.ckpt');
    expect(resolveCheckpoint('toString')).toBe('toString');
    expect(bedOfCheckpoint(path.join(repoRoot(), 'packages/lm/checkpoints/free-form.ckpt'))?.name).toBe('freeForm');
    expect(bedOfCheckpoint('packages/lm/checkpoints/other.ckpt')).toBeNull();
  });

  it('names the pretrain command of a bed that is not trained yet, and reads it once it is', () => {
    const bed = EMBEDDED_CHECKPOINTS.freeForm;
    expect(fs.existsSync(path.join(repoRoot(), bed.pretrainConfig))).toBe(true);
    if (fs.existsSync(path.join(repoRoot(), bed.checkpoint))) {
      expect(readCheckpointHeader(path.join(repoRoot(), bed.checkpoint)).config.contextLength).toBeGreaterThan(0);
    } else {
      expect(() => readCheckpointHeader(path.join(repoRoot(), bed.checkpoint))).toThrow(
        'checkpoint packages/lm/checkpoints/free-form.ckpt (bed freeForm) is not trained yet: run `npx nx run lm:pretrain -- --config packages/lm/checkpoints/free-form.pretrain.json` first',
      );
    }
    // any other missing file is still 'file not found'
    expect(() => readCheckpointHeader(path.join(repoRoot(), 'packages/lm/checkpoints/none.ckpt'))).toThrow(/none\.ckpt: file not found/);
  });
});
