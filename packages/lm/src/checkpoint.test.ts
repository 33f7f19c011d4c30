import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { Rng, UserError } from '@rred/core';
import { initEngine, tf } from '@rred/engine';
import { loadCheckpoint, readCheckpointHeader, saveCheckpoint } from './checkpoint';
import { Tokenizer } from './tokenizer';
import { createTransformer } from './transformer';

const tokenizer = Tokenizer.fromAlphabet('0123456789+=');
const config = { vocabSize: tokenizer.vocabSize, contextLength: 12, dModel: 8, nLayers: 2, nHeads: 2, dFF: 16 };

describe('checkpoints', () => {
  let dir: string;
  let file: string;
  beforeAll(async () => {
    await initEngine({ quiet: true });
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'lm-ckpt-'));
    file = path.join(dir, 'sub', 'model.ckpt');
    const model = createTransformer(config, new Rng(9));
    saveCheckpoint(file, { tokenizer, transformer: model, meta: { step: 12, note: 'test' } });
    model.dispose();
  });
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

  /** Loads `bytes` written to a scratch file and returns the UserError message. */
  function loadError(bytes: Buffer): string {
    const bad = path.join(dir, 'bad.ckpt');
    fs.writeFileSync(bad, bytes);
    try {
      loadCheckpoint(bad);
    } catch (err) {
      expect(err).toBeInstanceOf(UserError);
      expect((err as Error).message).toContain(bad);
      return (err as Error).message;
    }
    throw new Error('expected loadCheckpoint to fail');
  }

  it('round-trips weights, config, tokenizer and meta; leaves no temp file', () => {
    const original = createTransformer(config, new Rng(9));
    const before = tf.memory().numTensors;
    const loaded = loadCheckpoint(file);
    expect(loaded.config).toEqual(original.config);
    expect(loaded.meta).toEqual({ step: 12, note: 'test' });
    expect(loaded.tokenizer.encode('1+2=3')).toEqual(tokenizer.encode('1+2=3'));
    for (const [name, v] of original.params) {
      expect(Array.from(loaded.transformer.params.get(name)!.dataSync())).toEqual(Array.from(v.dataSync()));
    }
    const x = tf.tensor2d([[1, 5, 6, 7]], undefined, 'int32');
    const [a, b] = [original.logits(x), loaded.transformer.logits(x)];
    expect(Array.from(b.dataSync())).toEqual(Array.from(a.dataSync()));
    tf.dispose([x, a, b]);
    loaded.transformer.dispose();
    expect(tf.memory().numTensors).toBe(before);
    original.dispose();
    expect(fs.readdirSync(path.dirname(file))).toEqual(['model.ckpt']);
    expect(readCheckpointHeader(file).meta).toEqual({ step: 12, note: 'test' });
  });

  it('reports a missing file, bad magic, unknown version and truncation', () => {
    const good = fs.readFileSync(file);
    expect(() => loadCheckpoint(path.join(dir, 'nope.ckpt'))).toThrow(/nope\.ckpt: file not found/);
    const badMagic = Buffer.from(good);
    badMagic.write('XXXX', 0, 'latin1');
    expect(loadError(badMagic)).toMatch(/not an LM checkpoint/);
    const badVersion = Buffer.from(good);
    badVersion.writeUInt32LE(99, 8);
    expect(loadError(badVersion)).toMatch(/format version 99 is not supported/);
    expect(loadError(good.subarray(0, 10))).toMatch(/truncated/);
    expect(loadError(good.subarray(0, 40))).toMatch(/truncated inside the header/);
    expect(loadError(good.subarray(0, good.length - 8))).toMatch(/truncated \(\d+ weight bytes present/);
    expect(loadError(Buffer.concat([good, Buffer.alloc(4)]))).toMatch(/trailing bytes/);
  });

  it('detects corrupted weights by checksum', () => {
    const corrupt = Buffer.from(fs.readFileSync(file));
    corrupt[corrupt.length - 3] ^= 0x5a;
    expect(loadError(corrupt)).toMatch(/checksum mismatch/);
  });

  it('detects a header whose tensors do not match its config', () => {
    const good = fs.readFileSync(file);
    const headerLength = good.readUInt32LE(12);
    const header = JSON.parse(good.toString('utf8', 16, 16 + headerLength));
    const rewrite = (h: unknown): Buffer => {
      const json = Buffer.from(JSON.stringify(h), 'utf8');
      const pre = Buffer.from(good.subarray(0, 16));
      pre.writeUInt32LE(json.length, 12);
      const start = Math.ceil((16 + headerLength) / 4) * 4;
      const pad = Buffer.alloc(Math.ceil((16 + json.length) / 4) * 4 - 16 - json.length);
      return Buffer.concat([pre, json, pad, good.subarray(start)]);
    };
    expect(loadError(rewrite({ ...header, config: { ...header.config, dModel: 10 } }))).toMatch(
      /shape \[\d+,8\] but the config implies \[\d+,10\]/,
    );
    expect(loadError(rewrite({ ...header, config: { ...header.config, nLayers: 3 } }))).toMatch(
      /tensor 'blocks\.2\.ln1\.gamma' missing|tensor \d+ is/,
    );
    expect(loadError(rewrite({ ...header, config: { ...header.config, vocabSize: 99 } }))).toMatch(
      /tokenizer has 17 tokens but config\.vocabSize is 99/,
    );
    expect(loadError(rewrite({ ...header, extra: 1 }))).toMatch(/malformed header/);
    expect(loadError(rewrite({ ...header, config: { ...header.config, nHeads: 3 } }))).toMatch(/dModel/);
    // A consistent rewrite still loads, so the checks above fail for the reason named.
    const ok = path.join(dir, 'ok.ckpt');
    fs.writeFileSync(ok, rewrite(header));
    loadCheckpoint(ok).transformer.dispose();
  });

  it('refuses to save non-finite weights', () => {
    const model = createTransformer(config, new Rng(1));
    model.params.get('lnFinal.beta')!.assign(tf.fill([8], NaN));
    expect(() => saveCheckpoint(path.join(dir, 'nan.ckpt'), { tokenizer, transformer: model })).toThrow(
      /lnFinal\.beta has a non-finite value/,
    );
    model.dispose();
  });

  it('stores the activation; a header without one (written before the option existed) means gelu', () => {
    const relu = createTransformer({ ...config, activation: 'relu' }, new Rng(4));
    const reluFile = path.join(dir, 'relu.ckpt');
    saveCheckpoint(reluFile, { tokenizer, transformer: relu });
    expect(readCheckpointHeader(reluFile).config.activation).toBe('relu');
    const loaded = loadCheckpoint(reluFile);
    const x = tf.tensor2d([[1, 5, 6, 7]], undefined, 'int32');
    const [a, b] = [relu.logits(x), loaded.transformer.logits(x)];
    expect(Array.from(b.dataSync())).toEqual(Array.from(a.dataSync()));
    tf.dispose([x, a, b]);
    [relu, loaded.transformer].forEach((m) => m.dispose());
    expect(readCheckpointHeader(file).config.activation).toBe('gelu'); // default
  });
});
