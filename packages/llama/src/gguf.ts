import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { UserError } from '@rred/core';

/**
 * A GGUF (version 3) writer: the few bytes of the format that llama.cpp reads, little-endian.
 *   "GGUF" · u32 version 3 · u64 tensor count · u64 metadata count
 *   metadata: string key · u32 value type · value (arrays: u32 element type · u64 count · elements)
 *   tensor infos: string name · u32 n_dims · u64 ne[n_dims] (ggml order: ne[0] is the contiguous axis)
 *                 · u32 ggml type · u64 offset of its data from the start of the data section
 *   zero padding to `general.alignment` (32), then each tensor's data, each starting on a multiple of it.
 * Strings are u64 byte length + UTF-8 bytes (no terminator). Only F32 tensors are written: the lab's
 * models are small, and llama.cpp then computes with exactly the checkpoint's weights.
 */

/** GGUF metadata value types (gguf_type). */
const TYPE = { u32: 4, i32: 5, f32: 6, bool: 7, string: 8, array: 9 } as const;
/** ggml_type of F32 tensors. */
const GGML_F32 = 0;
const GGUF_ALIGNMENT = 32;

export type GgufValue =
  | { type: 'u32' | 'i32' | 'f32'; value: number }
  | { type: 'bool'; value: boolean }
  | { type: 'string'; value: string }
  | { type: 'array'; of: 'string'; value: string[] }
  | { type: 'array'; of: 'i32' | 'f32'; value: number[] };

export interface GgufTensor {
  name: string;
  /** ggml order: ne[0] is the fastest-varying axis (a row-major [rows, cols] matrix is [cols, rows]). */
  ne: number[];
  data: Float32Array;
}

/** Appends little-endian values to a growing list of chunks. */
class ByteSink {
  readonly chunks: Buffer[] = [];
  length = 0;

  push(b: Buffer): void {
    this.chunks.push(b);
    this.length += b.length;
  }
  u32(n: number): void {
    const b = Buffer.alloc(4);
    b.writeUInt32LE(n);
    this.push(b);
  }
  i32(n: number): void {
    const b = Buffer.alloc(4);
    b.writeInt32LE(n);
    this.push(b);
  }
  f32(n: number): void {
    const b = Buffer.alloc(4);
    b.writeFloatLE(n);
    this.push(b);
  }
  u64(n: number): void {
    const b = Buffer.alloc(8);
    b.writeBigUInt64LE(BigInt(n));
    this.push(b);
  }
  string(s: string): void {
    const bytes = Buffer.from(s, 'utf8');
    this.u64(bytes.length);
    this.push(bytes);
  }
  padTo(alignment: number): void {
    const pad = (alignment - (this.length % alignment)) % alignment;
    if (pad > 0) this.push(Buffer.alloc(pad));
  }
}

function writeValue(sink: ByteSink, v: GgufValue): void {
  switch (v.type) {
    case 'u32':
      return sink.u32(v.value);
    case 'i32':
      return sink.i32(v.value);
    case 'f32':
      return sink.f32(v.value);
    case 'bool':
      return sink.push(Buffer.from([v.value ? 1 : 0]));
    case 'string':
      return sink.string(v.value);
    case 'array':
      sink.u32(TYPE[v.of]);
      sink.u64(v.value.length);
      for (const x of v.value) {
        if (v.of === 'string') sink.string(x as string);
        else if (v.of === 'i32') sink.i32(x as number);
        else sink.f32(x as number);
      }
  }
}

/** The whole file's bytes: header, metadata, tensor infos, aligned F32 data. */
function ggufBytes(metadata: [string, GgufValue][], tensors: GgufTensor[]): Buffer {
  if (os.endianness() !== 'LE') throw new UserError('GGUF: this writer produces little-endian files and this machine is not');
  const sink = new ByteSink();
  sink.push(Buffer.from('GGUF', 'latin1'));
  sink.u32(3); // version
  sink.u64(tensors.length);
  sink.u64(metadata.length);
  for (const [key, value] of metadata) {
    sink.string(key);
    sink.u32(TYPE[value.type]);
    writeValue(sink, value);
  }
  let offset = 0;
  const offsets: number[] = [];
  for (const t of tensors) {
    const count = t.ne.reduce((a, b) => a * b, 1);
    if (count !== t.data.length) throw new Error(`GGUF tensor ${t.name}: ne [${t.ne}] holds ${count} values, data has ${t.data.length}`);
    sink.string(t.name);
    sink.u32(t.ne.length);
    for (const n of t.ne) sink.u64(n);
    sink.u32(GGML_F32);
    sink.u64(offset);
    offsets.push(offset);
    offset += Math.ceil(t.data.byteLength / GGUF_ALIGNMENT) * GGUF_ALIGNMENT;
  }
  sink.padTo(GGUF_ALIGNMENT);
  tensors.forEach((t) => {
    sink.push(Buffer.from(t.data.buffer, t.data.byteOffset, t.data.byteLength));
    sink.padTo(GGUF_ALIGNMENT);
  });
  return Buffer.concat(sink.chunks);
}

/** Writes a GGUF file atomically (a temporary file beside it, then rename): a failed write leaves no partial file. */
export function writeGguf(file: string, metadata: [string, GgufValue][], tensors: GgufTensor[]): number {
  const bytes = ggufBytes(metadata, tensors);
  fs.mkdirSync(path.dirname(path.resolve(file)), { recursive: true });
  const tmp = `${file}.tmp-${process.pid}-${Date.now()}`;
  try {
    fs.writeFileSync(tmp, bytes);
    fs.renameSync(tmp, file);
  } catch (err) {
    fs.rmSync(tmp, { force: true });
    throw new UserError(`export-gguf: could not write ${file} (${(err as Error).message})`);
  }
  return bytes.length;
}
