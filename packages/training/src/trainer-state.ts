import * as fs from 'fs';
import * as path from 'path';
import { tf } from '@rred/engine';
import { UserError } from '@rred/core';
import type { AdamWState } from './optimizer';

/**
 * Everything a trainer needs to continue a run as if it had never stopped: the policy weights, the
 * optimizer moments, the step and the data position (plus trainer-specific JSON). It is
 * self-contained, so resuming does not depend on the model checkpoint format.
 *
 * File layout: the 8-byte magic `RREDTS1\n`, a uint32 (LE) header length, the UTF-8 JSON header,
 * then the float32 payload; every tensor is listed in the header with its byte offset.
 */
export interface TrainerState {
  step: number;
  /** Trainer-specific JSON (data position, metrics history, config hash...). */
  info: Record<string, unknown>;
  weights: Record<string, { values: Float32Array; shape: number[] }>;
  optimizer: AdamWState;
}

const MAGIC = Buffer.from('RREDTS1\n', 'utf8');

interface TensorEntry {
  group: 'weight' | 'm' | 'v';
  name: string;
  shape: number[];
  offset: number;
  length: number;
}

/** Weights keyed by position in `variables` (names may carry per-instance prefixes). */
export function captureWeights(variables: tf.Variable[]): TrainerState['weights'] {
  const out: TrainerState['weights'] = {};
  variables.forEach((v, i) => {
    out[String(i)] = { values: Float32Array.from(v.dataSync() as Float32Array), shape: v.shape.slice() };
  });
  return out;
}

/** Overwrites the variables with saved weights; every variable must be present with its shape. */
export function restoreWeights(variables: tf.Variable[], weights: TrainerState['weights'], source: string): void {
  if (Object.keys(weights).length !== variables.length)
    throw new UserError(`${source}: file holds ${Object.keys(weights).length} weight tensors, model has ${variables.length}`);
  for (const [i, v] of variables.entries()) {
    const w = weights[String(i)];
    if (!w) throw new UserError(`${source}: no saved weights for variable #${i} '${v.name}'`);
    if (w.shape.join('x') !== v.shape.join('x'))
      throw new UserError(`${source}: variable '${v.name}' has shape [${w.shape}] in the file, model expects [${v.shape}]`);
    tf.tidy(() => v.assign(tf.tensor(w.values, w.shape, 'float32')));
  }
}

export function writeTrainerState(file: string, state: TrainerState): void {
  const entries: TensorEntry[] = [];
  const chunks: Float32Array[] = [];
  let offset = 0;
  const add = (group: TensorEntry['group'], name: string, values: Float32Array, shape: number[]) => {
    entries.push({ group, name, shape, offset, length: values.length });
    chunks.push(values);
    offset += values.length * 4;
  };
  for (const [name, w] of Object.entries(state.weights)) add('weight', name, w.values, w.shape);
  for (const [name, s] of Object.entries(state.optimizer.moments)) {
    add('m', name, s.m, s.shape);
    add('v', name, s.v, s.shape);
  }
  const header = Buffer.from(
    JSON.stringify({ step: state.step, info: state.info, optimizerStep: state.optimizer.step, tensors: entries }),
    'utf8',
  );
  const len = Buffer.alloc(4);
  len.writeUInt32LE(header.length, 0);
  const payload = chunks.map((c) => Buffer.from(c.buffer, c.byteOffset, c.byteLength));
  fs.mkdirSync(path.dirname(file), { recursive: true });
  // write-then-rename so an interrupted save never leaves a truncated state behind
  const tmp = `${file}.tmp-${process.pid}`;
  fs.writeFileSync(tmp, Buffer.concat([MAGIC, len, header, ...payload]));
  fs.renameSync(tmp, file);
}

export function readTrainerState(file: string): TrainerState {
  if (!fs.existsSync(file)) throw new UserError(`trainer state '${file}' does not exist (nothing to resume)`);
  const buf = fs.readFileSync(file);
  if (buf.length < 12 || !buf.subarray(0, 8).equals(MAGIC)) throw new UserError(`'${file}' is not a trainer state file (bad magic)`);
  const headerLength = buf.readUInt32LE(8);
  let header: { step: number; info: Record<string, unknown>; optimizerStep: number; tensors: TensorEntry[] };
  try {
    header = JSON.parse(buf.subarray(12, 12 + headerLength).toString('utf8'));
  } catch {
    throw new UserError(`'${file}': corrupt header`);
  }
  const base = 12 + headerLength;
  const state: TrainerState = { step: header.step, info: header.info, weights: {}, optimizer: { step: header.optimizerStep, moments: {} } };
  for (const e of header.tensors) {
    if (base + e.offset + e.length * 4 > buf.length) throw new UserError(`'${file}': truncated (tensor '${e.name}')`);
    // copy into an aligned array: Buffer offsets need not be 4-byte aligned
    const values = new Float32Array(e.length);
    Buffer.from(values.buffer).set(buf.subarray(base + e.offset, base + e.offset + e.length * 4));
    if (e.group === 'weight') state.weights[e.name] = { values, shape: e.shape };
    else {
      const slot = (state.optimizer.moments[e.name] ??= { m: new Float32Array(0), v: new Float32Array(0), shape: e.shape });
      slot[e.group] = values;
    }
  }
  return state;
}
