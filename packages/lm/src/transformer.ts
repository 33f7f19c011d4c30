import type { Rng } from '@rred/core';
import { attendAndAppend, attendPast, selfAttention, splitHeads, tf } from '@rred/engine';
import { parseModelConfig, type ModelConfig } from './config';
import { causalMask, embedRows, layerNorm, linear } from './layers';

/** The MLP's first layer and activation, act(x·W + b): GELU inside the fused dense layer, ReLU after it. */
const ACTIVATIONS = {
  relu: (x: tf.Tensor2D, w: tf.Tensor2D, b: tf.Tensor1D) => tf.relu(linear(x, w, b)),
  gelu: (x: tf.Tensor2D, w: tf.Tensor2D, b: tf.Tensor1D) => linear(x, w, b, 'gelu'),
};

/** Keys and values of one layer for the positions seen so far. */
// A type alias (not an interface) so it is a valid tf.TensorContainer to return from tf.tidy.
export type LayerKV = {
  k: tf.Tensor4D; // [B, H, P, dh]
  v: tf.Tensor4D; // [B, H, P, dh]
};

/** Everything one pass through the blocks needs besides the weights. */
interface BlockPass {
  /** Input embeddings (token + position) of the new positions, flattened: [B·S, C]. */
  x: tf.Tensor2D;
  batch: number; // B
  length: number; // S, new positions per row
  /** Additive attention mask [B or 1, 1, S, P + S] (P = 0 without `past`); 0 = visible, MASKED = hidden. */
  mask: tf.Tensor4D;
  /**
   * Cached keys/values of P earlier positions per layer (omit for a pass from scratch); batch B, or
   * batch 1 to share one cached prefix across all B rows.
   */
  past?: LayerKV[];
  /**
   * Packed tokens (optional; with `past`, without `pastLength`, keepKV false): `x` holds only the N real tokens
   * [N, C], not B·S slots, row b's n_b tokens consecutive from rows[b][0] (rows: int32 [B, 2], first
   * token and count). Everything per token (projections, MLP) runs on those N, and attention on the
   * ragged rows (the engine's attendPast with rows): rows of a few real tokens cost their tokens, not
   * their width (the scorer's pass 2: 12–24 suffix tokens in rows of the widest). The mask stays
   * [B, 1, S, T + S]; row b's first n_b rows and new-key columns are used.
   */
  packing?: { rows: tf.Tensor2D };
  /**
   * Whether to return each layer's K/V (default true): of past ++ new with `past` (the sampler extends its
   * cache with them), of the pass itself without (prefill, pass 1). false skips making them (training
   * and the scorer's pass 2 only need the hidden states) and returns none.
   */
  keepKV?: boolean;
  /**
   * With `past`: it is a preallocated cache [B, H, slots, dh] per layer holding `pastLength` positions,
   * and this pass's K/V are appended to it in place (the engine's attendAndAppend; new tensors off
   * wasm+native). The returned K/V are that cache, holding pastLength + S positions. For a cache the
   * caller owns (the sampler's); without it, past holds exactly its P positions and is not touched.
   */
  pastLength?: number;
}

interface BlockOutput {
  /** Final-layer-normed hidden states of the new positions: [B·S, C] ([N, C] with `packing`). */
  hidden: tf.Tensor2D;
  /** Per layer K, V of past ++ new positions: [B, H, P + S, dh] (none with keepKV false). */
  kv: LayerKV[];
}

interface BlockParams {
  ln1Gamma: tf.Variable;
  ln1Beta: tf.Variable;
  wQkv: tf.Variable;
  bQkv: tf.Variable; // [C, 3C], [3C]
  wAttnOut: tf.Variable;
  bAttnOut: tf.Variable; // [C, C], [C]
  ln2Gamma: tf.Variable;
  ln2Beta: tf.Variable;
  wIn: tf.Variable;
  bIn: tf.Variable; // [C, F], [F]
  wOut: tf.Variable;
  bOut: tf.Variable; // [F, C], [C]
}

/** Names and shapes of every parameter a config implies, in a fixed order (the checkpoint order). */
export function parameterShapes(config: ModelConfig): { name: string; shape: number[] }[] {
  const { vocabSize: V, contextLength: L, dModel: C, dFF: F } = config;
  const out = [
    { name: 'tokenEmbedding', shape: [V, C] },
    { name: 'positionEmbedding', shape: [L, C] },
  ];
  for (let i = 0; i < config.nLayers; i++) {
    const p = `blocks.${i}.`;
    out.push(
      { name: `${p}ln1.gamma`, shape: [C] },
      { name: `${p}ln1.beta`, shape: [C] },
      { name: `${p}attn.wQkv`, shape: [C, 3 * C] },
      { name: `${p}attn.bQkv`, shape: [3 * C] },
      { name: `${p}attn.wOut`, shape: [C, C] },
      { name: `${p}attn.bOut`, shape: [C] },
      { name: `${p}ln2.gamma`, shape: [C] },
      { name: `${p}ln2.beta`, shape: [C] },
      { name: `${p}mlp.wIn`, shape: [C, F] },
      { name: `${p}mlp.bIn`, shape: [F] },
      { name: `${p}mlp.wOut`, shape: [F, C] },
      { name: `${p}mlp.bOut`, shape: [C] },
    );
  }
  out.push({ name: 'lnFinal.gamma', shape: [C] }, { name: 'lnFinal.beta', shape: [C] });
  return out;
}

/** GPT-2 initialisation: N(0, 0.02) weights, residual output projections scaled by 1/√(2L), zero biases, unit LN gains. */
function initialValues(name: string, shape: number[], config: ModelConfig, rng: Rng): Float32Array {
  const size = shape.reduce((a, b) => a * b, 1);
  const values = new Float32Array(size);
  if (name.endsWith('.gamma')) return values.fill(1);
  if (name.endsWith('.beta') || /\.b[A-Z]/.test(name)) return values;
  const std = /(attn|mlp)\.wOut$/.test(name) ? 0.02 / Math.sqrt(2 * config.nLayers) : 0.02;
  const stream = rng.fork(name); // independent of parameter order
  for (let i = 0; i < size; i++) values[i] = std * stream.normal();
  return values;
}

let instanceCounter = 0;

/**
 * Decoder-only transformer (pre-norm, causal attention, learned positions, tied embeddings).
 * Weights are named `tf.Variable`s (`params`); every forward is a pure function of them.
 */
export class Transformer {
  readonly config: ModelConfig;
  /** Parameters by name (see `parameterShapes`), in checkpoint order. */
  readonly params: ReadonlyMap<string, tf.Variable>;
  readonly paramCount: number;
  private readonly blocks: BlockParams[];
  private readonly tokenEmbedding: tf.Variable; // [V, C]
  private readonly positionEmbedding: tf.Variable; // [L, C]
  private readonly lnFinalGamma: tf.Variable;
  private readonly lnFinalBeta: tf.Variable;

  /** Use `createTransformer` (random init) or `loadCheckpoint`; this takes initial values by name. */
  constructor(config: ModelConfig, values: (name: string, shape: number[]) => Float32Array | tf.Tensor /* owned by the constructor */) {
    this.config = config;
    // tf.Variable names are global to the engine, so each instance gets its own prefix.
    const prefix = `lm${instanceCounter++}/`;
    const params = new Map<string, tf.Variable>();
    let count = 0;
    for (const { name, shape } of parameterShapes(config)) {
      const init = values(name, shape);
      const tensor = init instanceof Float32Array ? tf.tensor(init, shape, 'float32') : init;
      if (!arraysEqual(tensor.shape, shape)) throw new Error(`parameter ${name}: got shape [${tensor.shape}], expected [${shape}]`);
      params.set(name, tf.variable(tensor, true, `${prefix}${name}`));
      count += tensor.size;
      tensor.dispose(); // the variable holds its own reference to the data
    }
    this.params = params;
    this.paramCount = count;
    const get = (name: string) => params.get(name)!;
    this.tokenEmbedding = get('tokenEmbedding');
    this.positionEmbedding = get('positionEmbedding');
    this.lnFinalGamma = get('lnFinal.gamma');
    this.lnFinalBeta = get('lnFinal.beta');
    this.blocks = Array.from({ length: config.nLayers }, (_, i) => {
      const p = (n: string) => get(`blocks.${i}.${n}`);
      return {
        ln1Gamma: p('ln1.gamma'),
        ln1Beta: p('ln1.beta'),
        wQkv: p('attn.wQkv'),
        bQkv: p('attn.bQkv'),
        wAttnOut: p('attn.wOut'),
        bAttnOut: p('attn.bOut'),
        ln2Gamma: p('ln2.gamma'),
        ln2Beta: p('ln2.beta'),
        wIn: p('mlp.wIn'),
        bIn: p('mlp.bIn'),
        wOut: p('mlp.wOut'),
        bOut: p('mlp.bOut'),
      };
    });
  }

  /** Trainable variables in checkpoint order (for tf.variableGrads / optimizers). */
  variables(): tf.Variable[] {
    return [...this.params.values()];
  }

  /** Full causal forward: int32 tokens [B, T] at positions 0..T−1 → logits [B, T, V]. */
  logits(tokens: tf.Tensor2D): tf.Tensor3D {
    return tf.tidy(() => {
      const [B, T] = tokens.shape;
      return tf.reshape(this.logitsFromEmbeddings(this.embedFromStart(tokens)), [B, T, this.config.vocabSize]) as tf.Tensor3D;
    });
  }

  /** Token + position embeddings for positions 0..T−1: [B, T] → [B, T, C]. Differentiable in the weights. */
  embedFromStart(tokens: tf.Tensor2D): tf.Tensor3D {
    const [B, T] = tokens.shape;
    this.checkLength(T);
    const C = this.config.dModel;
    return tf.tidy(() => {
      const tok = tf.reshape(embedRows(tf.reshape(tokens, [B * T]) as tf.Tensor1D, this.tokenEmbedding as tf.Tensor2D), [B, T, C]); // [B, T, C]
      const pos = tf.slice(this.positionEmbedding, [0, 0], [T, C]); // [T, C]
      return tf.add(tok, pos) as tf.Tensor3D;
    });
  }

  /**
   * Token + position embeddings at explicit positions (for cached passes): [B, S] ids and positions → [B·S, C].
   * Inference only: a row gather (the same values as embedRows' one-hot product, without its
   * [B·S, contextLength] one-hot matrix per decode step), whose gradient plain wasm lacks.
   */
  embedAt(tokens: tf.Tensor2D, positions: tf.Tensor2D): tf.Tensor2D {
    const [B, S] = tokens.shape;
    return tf.tidy(() => {
      const tok = tf.gather(this.tokenEmbedding, tf.reshape(tokens, [B * S])) as tf.Tensor2D; // [B·S, C]
      const pos = tf.gather(this.positionEmbedding, tf.reshape(positions, [B * S])) as tf.Tensor2D; // [B·S, C]
      return tf.add(tok, pos) as tf.Tensor2D;
    });
  }

  /** Causal forward from input embeddings e [B, T, C] (positions 0..T−1) → logits [B·T, V]. */
  logitsFromEmbeddings(embeddings: tf.Tensor3D): tf.Tensor2D {
    return tf.tidy(() => {
      const [B, T, C] = embeddings.shape;
      const { hidden } = this.runBlocks({
        x: tf.reshape(embeddings, [B * T, C]) as tf.Tensor2D,
        batch: B,
        length: T,
        mask: causalMask(T),
        keepKV: false,
      });
      return this.head(hidden);
    });
  }

  /** Tied output projection: hidden [N, C] → logits [N, V]. */
  head(hidden: tf.Tensor2D): tf.Tensor2D {
    return tf.matMul(hidden, this.tokenEmbedding, false, true);
  }

  /**
   * One pass through all blocks for S new positions per row, attending to `past` (if any) and to
   * each other under `mask`. Returns the final-normed hidden states and the K/V of past ++ new.
   */
  runBlocks(pass: BlockPass): BlockOutput {
    const activation = ACTIVATIONS[this.config.activation];
    let x = pass.x; // [B·S, C], or [N, C] packed
    const kv: LayerKV[] = [];
    if (pass.packing && (!pass.past || pass.pastLength !== undefined || pass.keepKV !== false))
      throw new Error('runBlocks: packing needs past, no pastLength and keepKV false (only attendPast has ragged rows)');
    this.blocks.forEach((p, layer) => {
      // Each layer in its own tidy so inference frees a layer's intermediates before the next
      // (gradient recording keeps what backprop needs regardless).
      const out = tf.tidy(() => {
        // --- attention ---
        const qkv = linear(layerNorm(x, p.ln1Gamma as tf.Tensor1D, p.ln1Beta as tf.Tensor1D), p.wQkv as tf.Tensor2D, p.bQkv as tf.Tensor1D); // [B·S, 3C] (packed: [N, 3C])
        const { rows: merged, kept } = this.attend(qkv, pass, layer); // [B·S, C] (packed: [N, C]), this layer's K/V if kept
        const afterAttn = linear(merged, p.wAttnOut as tf.Tensor2D, p.bAttnOut as tf.Tensor1D, 'none', x); // x + merged·W + b
        // --- MLP ---
        const normed = layerNorm(afterAttn, p.ln2Gamma as tf.Tensor1D, p.ln2Beta as tf.Tensor1D);
        const hiddenFF = activation(normed, p.wIn as tf.Tensor2D, p.bIn as tf.Tensor1D); // [B·S, F]
        return {
          x: linear(hiddenFF, p.wOut as tf.Tensor2D, p.bOut as tf.Tensor1D, 'none', afterAttn), // afterAttn + hiddenFF·W + b
          kept: kept ? [kept] : [],
        };
      });
      x = out.x;
      kv.push(...out.kept);
    });
    return { hidden: layerNorm(x, this.lnFinalGamma as tf.Tensor1D, this.lnFinalBeta as tf.Tensor1D), kv };
  }

  /**
   * One layer's attention from its QKV projection qkv [B·S, 3C]: the heads' outputs merged [B·S, C] and,
   * unless `pass.keepKV` is false, the layer's K/V (of past ++ new with a past). From scratch it is the
   * engine's selfAttention; over a cache, attendAndAppend (a preallocated cache, `pass.pastLength`) or attendPast.
   */
  private attend(qkv: tf.Tensor2D, pass: BlockPass, layer: number): { rows: tf.Tensor2D; kept: LayerKV | null } {
    const { batch: B } = pass;
    const { dModel: C, nHeads: H } = this.config;
    const scale = 1 / Math.sqrt(C / H);
    const keys = () => {
      const [k, v] = splitHeads(qkv, B, H, 1); // [B, H, S, dh] each
      return { k, v };
    };
    const past = pass.past?.[layer];
    if (!past) {
      // From scratch (training, prefill, pass 1): one fused op from qkv, heads merged; K/V split out only if asked for.
      const rows = selfAttention(qkv, B, H, pass.mask, scale);
      return { rows, kept: pass.keepKV === false ? null : keys() };
    }
    if (pass.pastLength !== undefined) {
      // Decode: the new K/V go into the preallocated cache, nothing it holds is copied.
      const grown = attendAndAppend(past, pass.pastLength, qkv, B, H, pass.mask, scale);
      return { rows: grown.attended, kept: grown.cache };
    }
    // Inference over cached positions: one fused op (a shared prefix, batch 1, is broadcast inside it).
    const rows = attendPast(qkv, B, H, past.k, past.v, pass.mask, scale, pass.packing?.rows);
    if (pass.keepKV === false) return { rows, kept: null };
    const { k, v } = keys();
    const expand = (t: tf.Tensor4D) => (t.shape[0] === B ? t : tf.tile(t, [B, 1, 1, 1]));
    return { rows, kept: { k: tf.concat([expand(past.k), k], 2), v: tf.concat([expand(past.v), v], 2) } }; // [B, H, P+S, dh]
  }

  /** A new transformer with a copy of these weights (e.g. a frozen reference policy). */
  clone(): Transformer {
    return new Transformer(this.config, (name) => this.params.get(name)!.clone());
  }

  /** Copies weights from another transformer of the same config (in place). */
  copyWeightsFrom(other: Transformer): void {
    for (const [name, variable] of this.params) variable.assign(other.params.get(name)!);
  }

  dispose(): void {
    for (const variable of this.params.values()) variable.dispose();
  }

  private checkLength(T: number): void {
    if (T > this.config.contextLength) throw new Error(`sequence of ${T} tokens exceeds contextLength ${this.config.contextLength}`);
  }
}

/** A freshly initialised transformer; weights are a pure function of the config and `rng`'s seed. */
export function createTransformer(config: ModelConfig | Parameters<typeof parseModelConfig>[0], rng: Rng): Transformer {
  const parsed = parseModelConfig(config);
  return new Transformer(parsed, (name, shape) => initialValues(name, shape, parsed, rng));
}

function arraysEqual(a: readonly number[], b: readonly number[]): boolean {
  return a.length === b.length && a.every((x, i) => x === b[i]);
}
