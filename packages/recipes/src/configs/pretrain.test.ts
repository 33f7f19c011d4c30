/**
 * A pretrain whose config has no `output.*` writes to the schema's default paths, which are git-ignored, so it
 * never overwrites the embedded checkpoint or its run record; the embedded model is re-made by a committed
 * config that names its outputs, and that config resolves to the one its run record holds.
 */
import * as path from 'path';
import { canonicalJson, isTracked, parseConfig, readJsonFile, repoRoot } from '@rred/core';
import { EMBEDDED_CHECKPOINTS, parseModelConfig } from '@rred/lm';
import { pretrainConfigSchema } from './pretrain';

describe('pretrain outputs', () => {
  it('default to git-ignored paths, never a committed checkpoint or run record', () => {
    const output = parseConfig(pretrainConfigSchema, {}, 'defaults').output;
    const shipped = Object.values(EMBEDDED_CHECKPOINTS).flatMap((c) => [c.checkpoint, c.runRecord]);
    for (const file of Object.values(output)) {
      expect(shipped).not.toContain(file);
      expect(isTracked(repoRoot(), file)).toBe(false);
      expect(file.startsWith('packages/training/.state/')).toBe(true); // ignored by packages/training/.gitignore
    }
    // the check itself can tell: the committed files are tracked (a bed not trained yet has none)
    const trained = Object.values(EMBEDDED_CHECKPOINTS).filter((c) => !('pretrainConfig' in c) || isTracked(repoRoot(), c.checkpoint));
    for (const c of trained) expect(isTracked(repoRoot(), c.runRecord)).toBe(true);
  });

  it('embedded.pretrain.json names the embedded outputs and resolves to the config its run record holds', () => {
    const file = path.join(repoRoot(), 'packages', 'lm', 'checkpoints', 'embedded.pretrain.json');
    const config = parseConfig(pretrainConfigSchema, readJsonFile(file), file);
    expect(config.output.checkpoint).toBe(EMBEDDED_CHECKPOINTS.embedded.checkpoint);
    expect(config.output.runRecord).toBe(EMBEDDED_CHECKPOINTS.embedded.runRecord);
    const record = readJsonFile(path.join(repoRoot(), EMBEDDED_CHECKPOINTS.embedded.runRecord)) as { config: unknown };
    expect(canonicalJson(config)).toBe(canonicalJson(parseConfig(pretrainConfigSchema, record.config, 'run record')));
  });
});

describe('pretrain model shape', () => {
  // each field at and beyond its limits, and dModel not a multiple of nHeads
  const probes: Record<string, number>[] = [
    { contextLength: 1 },
    { contextLength: 2 },
    { contextLength: 16 },
    { contextLength: 4096 },
    { contextLength: 4097 },
    { dModel: 0 },
    { dModel: 4, nHeads: 4 },
    { dModel: 6, nHeads: 4 },
    { nLayers: 0 },
    { nLayers: 1 },
    { nHeads: 0 },
    { dFF: 0 },
    { dFF: 1 },
    { contextLength: 2.5 },
  ];
  it.each(probes)("accepts exactly the shapes @rred/lm's model config accepts: %j", (shape) => {
    const lm = (() => {
      try {
        parseModelConfig({ vocabSize: 12, ...shape });
        return 'ok';
      } catch {
        return 'refused';
      }
    })();
    const door = (() => {
      try {
        parseConfig(pretrainConfigSchema, { model: shape }, 'probe');
        return 'ok';
      } catch {
        return 'refused';
      }
    })();
    expect(door).toBe(lm);
  });
  it('the probes reach both verdicts', () => {
    const verdict = (shape: Record<string, number>) => {
      try {
        parseModelConfig({ vocabSize: 12, ...shape });
        return true;
      } catch {
        return false;
      }
    };
    expect(new Set(probes.map(verdict))).toEqual(new Set([true, false]));
  });
});
