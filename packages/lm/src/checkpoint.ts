import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { z } from 'zod';
import { canonicalJson, UserError } from '@rred/core';
import { parseModelConfig, type ModelConfig } from './config';
import { Tokenizer } from './tokenizer';
import { untrainedBedError } from './embedded';
import { parameterShapes, Transformer } from './transformer';

/**
 * Checkpoint file layout (one file, little-endian):
 *   bytes 0..7    magic "RREDLMCK"
 *   bytes 8..11   uint32 format version (CHECKPOINT_VERSION)
 *   bytes 12..15  uint32 header length H
 *   bytes 16..    H bytes of UTF-8 JSON header {format, config, tokenizer, tensors, weightsBytes, weightsSha256, meta}
 *   zero padding to a multiple of 4 bytes
 *   float32 weights of `tensors`, in order, row-major
 * Every inconsistency is reported as a UserError naming the file and what is wrong.
 */
const CHECKPOINT_MAGIC = 'RREDLMCK';
const CHECKPOINT_VERSION = 1;
const PREAMBLE_BYTES = 16;

const headerSchema = z
  .object({
    format: z.literal('rred-lm-checkpoint'),
    config: z.unknown(),
    tokenizer: z.unknown(),
    tensors: z.array(z.object({ name: z.string(), shape: z.array(z.number().int().nonnegative()) }).strict()),
    weightsBytes: z.number().int().nonnegative(),
    weightsSha256: z.string().regex(/^[0-9a-f]{64}$/),
    meta: z.record(z.unknown()),
  })
  .strict();

type CheckpointHeader = Omit<z.infer<typeof headerSchema>, 'config'> & { config: ModelConfig };

interface Checkpoint {
  config: ModelConfig;
  tokenizer: Tokenizer;
  transformer: Transformer;
  /** Free-form JSON the writer attached (training config, data seed, step, metrics...). */
  meta: Record<string, unknown>;
}

interface CheckpointInput {
  /** Defaults to transformer.config; if given it must equal it. */
  config?: ModelConfig;
  tokenizer: Tokenizer;
  transformer: Transformer;
  meta?: Record<string, unknown>;
}

/** Writes a checkpoint atomically (temporary file in the same directory, then rename). */
export function saveCheckpoint(file: string, input: CheckpointInput): void {
  const { tokenizer, transformer } = input;
  const config = transformer.config;
  if (input.config && JSON.stringify(parseModelConfig(input.config)) !== JSON.stringify(config)) {
    throw new UserError(
      `saveCheckpoint ${file}: config ${JSON.stringify(input.config)} differs from the transformer's ${JSON.stringify(config)}`,
    );
  }
  if (tokenizer.vocabSize !== config.vocabSize) {
    throw new UserError(
      `saveCheckpoint ${file}: tokenizer has ${tokenizer.vocabSize} tokens but the model's vocabSize is ${config.vocabSize}`,
    );
  }
  assertLittleEndian(file);
  const specs = parameterShapes(config);
  const total = specs.reduce((n, s) => n + size(s.shape), 0);
  const weights = new Float32Array(total);
  let offset = 0;
  for (const spec of specs) {
    const values = transformer.params.get(spec.name)!.dataSync() as Float32Array;
    const bad = values.findIndex((x) => !Number.isFinite(x));
    if (bad >= 0)
      throw new UserError(
        `saveCheckpoint ${file}: parameter ${spec.name} has a non-finite value (${values[bad]}) at index ${bad}; refusing to save a diverged model`,
      );
    weights.set(values, offset);
    offset += values.length;
  }
  const weightBytes = Buffer.from(weights.buffer, weights.byteOffset, weights.byteLength);
  const header = {
    format: 'rred-lm-checkpoint',
    config,
    tokenizer: tokenizer.toJSON(),
    tensors: specs,
    weightsBytes: weightBytes.length,
    weightsSha256: createHash('sha256').update(weightBytes).digest('hex'),
    meta: JSON.parse(JSON.stringify(input.meta ?? {})) as Record<string, unknown>,
  };
  const headerBytes = Buffer.from(JSON.stringify(header), 'utf8');
  const preamble = Buffer.alloc(PREAMBLE_BYTES);
  preamble.write(CHECKPOINT_MAGIC, 0, 'latin1');
  preamble.writeUInt32LE(CHECKPOINT_VERSION, 8);
  preamble.writeUInt32LE(headerBytes.length, 12);
  const padding = Buffer.alloc(padTo4(PREAMBLE_BYTES + headerBytes.length) - (PREAMBLE_BYTES + headerBytes.length));

  fs.mkdirSync(path.dirname(path.resolve(file)), { recursive: true });
  const tmp = `${file}.tmp-${process.pid}-${Date.now()}`;
  try {
    fs.writeFileSync(tmp, Buffer.concat([preamble, headerBytes, padding, weightBytes]));
    fs.renameSync(tmp, file);
  } catch (err) {
    fs.rmSync(tmp, { force: true });
    throw new UserError(`saveCheckpoint ${file}: could not write (${(err as Error).message})`);
  }
}

/** Reads and validates only the header (no weights are loaded). */
export function readCheckpointHeader(file: string): CheckpointHeader {
  return parseFile(file, readBytes(file)).header;
}

/**
 * A checkpoint's identity: sha256 of the canonical JSON of everything that decides the model's outputs —
 * the format version, the resolved model config (defaults applied, so an old header without
 * `activation` equals one that says 'gelu'), the tokenizer (alphabet and specials) and the weights (by
 * their sha256, which loading verifies against the data). `meta` (training notes) is left out. Two files
 * with the same weights but another nHeads, activation or alphabet are different models and hash
 * differently; this is the `checkpointHash` every run and trace records.
 */
export function checkpointHash(file: string): string {
  const { header, tokenizer } = parseFile(file, readBytes(file));
  const identity = {
    format: header.format,
    version: CHECKPOINT_VERSION,
    config: header.config,
    tokenizer: tokenizer.toJSON(),
    weightsSha256: header.weightsSha256,
  };
  return createHash('sha256').update(canonicalJson(identity)).digest('hex');
}

/** Loads and fully validates a checkpoint; the transformer's variables hold the saved weights. */
export function loadCheckpoint(file: string): Checkpoint {
  const { header, tokenizer, weights } = readVerified(file);
  const offsets = new Map<string, number>();
  let offset = 0;
  for (const spec of header.tensors) {
    offsets.set(spec.name, offset);
    offset += size(spec.shape);
  }
  const transformer = new Transformer(header.config, (name, shape) => {
    const start = offsets.get(name)!;
    return weights.slice(start, start + size(shape));
  });
  return { config: header.config, tokenizer, transformer, meta: header.meta };
}

function readBytes(file: string): Buffer {
  try {
    return fs.readFileSync(file);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') throw untrainedBedError(file) ?? new UserError(`checkpoint ${file}: file not found`);
    throw new UserError(`checkpoint ${file}: ${code === 'ENOENT' ? 'file not found' : `cannot read (${(err as Error).message})`}`);
  }
}

function parseFile(file: string, bytes: Buffer): { header: CheckpointHeader; tokenizer: Tokenizer; weightsStart: number } {
  const where = `checkpoint ${file}`;
  if (bytes.length < PREAMBLE_BYTES)
    throw new UserError(`${where}: truncated (${bytes.length} bytes, shorter than the ${PREAMBLE_BYTES}-byte preamble)`);
  const magic = bytes.toString('latin1', 0, 8);
  if (magic !== CHECKPOINT_MAGIC)
    throw new UserError(`${where}: not an LM checkpoint (magic ${JSON.stringify(magic)}, expected ${JSON.stringify(CHECKPOINT_MAGIC)})`);
  const version = bytes.readUInt32LE(8);
  if (version !== CHECKPOINT_VERSION)
    throw new UserError(`${where}: format version ${version} is not supported (this build reads version ${CHECKPOINT_VERSION})`);
  const headerLength = bytes.readUInt32LE(12);
  if (PREAMBLE_BYTES + headerLength > bytes.length)
    throw new UserError(`${where}: truncated inside the header (needs ${PREAMBLE_BYTES + headerLength} bytes, file has ${bytes.length})`);
  let raw: unknown;
  try {
    raw = JSON.parse(bytes.toString('utf8', PREAMBLE_BYTES, PREAMBLE_BYTES + headerLength));
  } catch (err) {
    throw new UserError(`${where}: header is not valid JSON (${(err as Error).message})`);
  }
  const parsed = headerSchema.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new UserError(`${where}: malformed header at '${issue.path.join('.') || '(root)'}': ${issue.message}`);
  }
  const config = parseModelConfig(parsed.data.config, `${where} header.config`);
  const tokenizer = Tokenizer.fromJSON(parsed.data.tokenizer, `${where} header.tokenizer`);
  if (tokenizer.vocabSize !== config.vocabSize) {
    throw new UserError(`${where}: tokenizer has ${tokenizer.vocabSize} tokens but config.vocabSize is ${config.vocabSize}`);
  }
  const expected = parameterShapes(config);
  const got = parsed.data.tensors;
  for (let i = 0; i < Math.max(expected.length, got.length); i++) {
    const e = expected[i];
    const g = got[i];
    if (!e)
      throw new UserError(`${where}: unexpected tensor '${g.name}' (config ${JSON.stringify(config)} implies ${expected.length} tensors)`);
    if (!g)
      throw new UserError(`${where}: tensor '${e.name}' missing (file lists ${got.length} tensors, config implies ${expected.length})`);
    if (g.name !== e.name) throw new UserError(`${where}: tensor ${i} is '${g.name}', expected '${e.name}'`);
    if (g.shape.join(',') !== e.shape.join(','))
      throw new UserError(`${where}: tensor '${g.name}' has shape [${g.shape}] but the config implies [${e.shape}]`);
  }
  const weightsStart = padTo4(PREAMBLE_BYTES + headerLength);
  const expectedBytes = expected.reduce((n, s) => n + size(s.shape), 0) * 4;
  if (parsed.data.weightsBytes !== expectedBytes)
    throw new UserError(`${where}: header declares ${parsed.data.weightsBytes} weight bytes, the tensors need ${expectedBytes}`);
  const actualBytes = bytes.length - weightsStart;
  if (actualBytes < expectedBytes)
    throw new UserError(`${where}: truncated (${actualBytes} weight bytes present, ${expectedBytes} expected)`);
  if (actualBytes > expectedBytes)
    throw new UserError(`${where}: ${actualBytes - expectedBytes} unexpected trailing bytes after the weights`);
  return { header: { ...parsed.data, config }, tokenizer, weightsStart };
}

function assertLittleEndian(file: string): void {
  if (os.endianness() !== 'LE') throw new UserError(`checkpoint ${file}: this format is little-endian and this machine is not`);
}

function size(shape: readonly number[]): number {
  return shape.reduce((a, b) => a * b, 1);
}

function padTo4(n: number): number {
  return Math.ceil(n / 4) * 4;
}

/**
 * Verifies a checkpoint completely (header, weights checksum, every weight finite) without building a
 * model, so a command can refuse a damaged file before it writes anything.
 */
export function verifyCheckpoint(file: string): void {
  readVerified(file);
}

/** Header, tokenizer and weights of a checkpoint whose weights match the header's checksum and are all finite. */
function readVerified(file: string): { header: CheckpointHeader; tokenizer: Tokenizer; weights: Float32Array } {
  assertLittleEndian(file);
  const bytes = readBytes(file);
  const { header, tokenizer, weightsStart } = parseFile(file, bytes);
  const weightBytes = bytes.subarray(weightsStart);
  const digest = createHash('sha256').update(weightBytes).digest('hex');
  if (digest !== header.weightsSha256) {
    throw new UserError(
      `checkpoint ${file}: weights checksum mismatch (header says sha256 ${header.weightsSha256.slice(0, 12)}…, data hashes to ${digest.slice(0, 12)}…); the file is corrupt`,
    );
  }
  // Copy into an aligned buffer: the weights start at a 4-byte offset of the file, not of the Buffer pool.
  const weights = new Float32Array(weightBytes.length / 4);
  new Uint8Array(weights.buffer).set(weightBytes);
  const bad = weights.findIndex((x) => !Number.isFinite(x));
  if (bad >= 0) throw new UserError(`checkpoint ${file}: weight ${bad} is not finite (${weights[bad]})`);
  return { header, tokenizer, weights };
}
