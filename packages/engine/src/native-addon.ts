import * as fs from 'fs';
import * as path from 'path';

/** The compiled addon (packages/engine/native); every kernel reads/writes the wasm heap in place. */
export interface NativeAddon {
  batchMatMul(
    heap: ArrayBuffer,
    aOff: number,
    bOff: number,
    outOff: number,
    m: number,
    n: number,
    k: number,
    transposeA: number,
    transposeB: number,
    aIdx: Int32Array,
    bIdx: Int32Array,
    aBatches: number,
    bBatches: number,
  ): void;
  setThreads(n: number): void;
  getThreads(): number;
  blasConfig(): string;
  /** Best seconds for one n×n×n sgemm on private buffers. */
  sgemmBench(n: number, reps: number): number;
  /** meta = [rank, shape[r], srcStrides[r], dstStrides[r]] in elements (4-byte elements). */
  stridedCopy(heap: ArrayBuffer, srcOff: number, dstOff: number, meta: Int32Array): void;
  unary(heap: ArrayBuffer, op: number, xOff: number, outOff: number, n: number): void;
  /** meta = [rank, outShape[r], aStrides[r], bStrides[r]]; inner strides 0 or 1. */
  binary(heap: ArrayBuffer, op: number, aOff: number, bOff: number, outOff: number, meta: Int32Array): void;
  reduce(heap: ArrayBuffer, op: number, xOff: number, outOff: number, outer: number, red: number, inner: number): void;
  softmax(heap: ArrayBuffer, xOff: number, outOff: number, rows: number, cols: number): void;
  /** Self-attention from the fused QKV projection (attention.c): out [B·S, C], probs [B, H, S, S]. */
  selfAttention(
    heap: ArrayBuffer,
    qkvOff: number,
    maskOff: number,
    outOff: number,
    probsOff: number,
    B: number,
    H: number,
    S: number,
    dh: number,
    maskB: number,
    scale: number,
  ): void;
  /** Its gradient into dqkv [B·S, 3C] from dOut [B·S, C] and the saved probs. */
  selfAttentionGrad(
    heap: ArrayBuffer,
    qkvOff: number,
    probsOff: number,
    dOutOff: number,
    dQkvOff: number,
    B: number,
    H: number,
    S: number,
    dh: number,
    scale: number,
  ): void;
  /** Attention over cached + new positions, the new ones' q/k/v read from qkv [B·S, 3C] (attention.c); shapes as there, in elements. */
  attendPast(
    heap: ArrayBuffer,
    qkvOff: number,
    kPastOff: number,
    vPastOff: number,
    maskOff: number,
    outOff: number,
    B: number,
    H: number,
    S: number,
    T: number,
    dh: number,
    pastB: number,
    maskB: number,
    scale: number,
    slots: number,
    append: number,
    /** Ragged rows int32 [B, 2] (first packed token, count), or -1: qkv and out then hold N packed tokens. */
    rowsOff: number,
    N: number,
  ): void;
  /** Σ x² over float32 arrays of the heap, spans [byteOffset, count, …] (reduce.c), summed in float64. */
  sumSquares(heap: ArrayBuffer, spans: Float64Array): number;
  /** Returns -1, or the position of the first out-of-range index. */
  gatherRows(heap: ArrayBuffer, xOff: number, idxOff: number, outOff: number, nRows: number, rowLen: number, nIdx: number): number;
  segmentSum(heap: ArrayBuffer, xOff: number, idsOff: number, outOff: number, n: number, rowLen: number, numSegments: number): void;
  layerNorm(
    heap: ArrayBuffer,
    xOff: number,
    gammaOff: number,
    betaOff: number,
    yOff: number,
    meanOff: number,
    rstdOff: number,
    rows: number,
    cols: number,
    eps: number,
  ): void;
  layerNormGrad(
    heap: ArrayBuffer,
    dyOff: number,
    xOff: number,
    gammaOff: number,
    meanOff: number,
    rstdOff: number,
    dxOff: number,
    dgammaOff: number,
    dbetaOff: number,
    rows: number,
    cols: number,
  ): void;
  /** Dense layer (linear.c): pre = x·w + b (+ residual, act 0 only; resOff −1: none) [R, O]; with act 1 also y = gelu(pre) (else y is pre, yOff unused). */
  linear(
    heap: ArrayBuffer,
    xOff: number,
    wOff: number,
    bOff: number,
    preOff: number,
    yOff: number,
    R: number,
    I: number,
    O: number,
    act: number,
    resOff: number,
  ): void;
  /** Its gradient: dx [R, I], dw [I, O], db [O] from dy [R, O] (and pre with act 1). */
  linearGrad(
    heap: ArrayBuffer,
    xOff: number,
    wOff: number,
    dyOff: number,
    preOff: number,
    dxOff: number,
    dwOff: number,
    dbOff: number,
    R: number,
    I: number,
    O: number,
    act: number,
  ): void;
  adamw(
    heap: ArrayBuffer,
    pOff: number,
    gOff: number,
    mOff: number,
    vOff: number,
    pOutOff: number,
    mOutOff: number,
    vOutOff: number,
    n: number,
    lr: number,
    beta1: number,
    beta2: number,
    eps: number,
    c1: number,
    c2: number,
    weightDecay: number,
    gradScale: number,
  ): void;
  unaryOps: Record<string, number>;
  binaryOps: Record<string, number>;
  reduceOps: Record<string, number>;
}

type AddonLoad = { ok: true; addon: NativeAddon; path: string } | { ok: false; reason: string };

const DEFAULT_ADDON_PATH = path.resolve(__dirname, '..', 'native', 'build', 'Release', 'rred_native.node');

/**
 * Loads the addon from `RRED_NATIVE_ADDON` (tests point it at a missing file to exercise the fallback)
 * or the node-gyp build output. Never throws: a failure comes back as a one-line reason.
 */
export function loadNativeAddon(addonPath = process.env.RRED_NATIVE_ADDON || DEFAULT_ADDON_PATH): AddonLoad {
  if (!fs.existsSync(addonPath)) {
    return { ok: false, reason: `addon not found at ${displayPath(addonPath)}; run \`node packages/engine/native/build.js\`` };
  }
  applyOpenblasEnv(path.dirname(addonPath));
  try {
    // eslint-disable-next-line @typescript-eslint/no-var-requires
    const addon = require(addonPath) as NativeAddon;
    if (typeof addon.batchMatMul !== 'function') return { ok: false, reason: `${addonPath} is not the rred_native addon` };
    return { ok: true, addon, path: addonPath };
  } catch (err) {
    return { ok: false, reason: `addon failed to load: ${firstLine(err)}` };
  }
}

/**
 * OpenBLAS picks its kernels from the CPU model when it is loaded; on CPUs newer than the library
 * (e.g. a Sapphire Rapids VM under OpenBLAS 0.3.21) it falls back to ancient SSE3 kernels, 5-10x
 * slower. The build script probes this once and records the right OPENBLAS_CORETYPE next to the
 * addon; it is applied here, before the library loads, unless the user set it already.
 */
function applyOpenblasEnv(dir: string): void {
  // OpenBLAS workers spin ~2^28 cycles (~0.1 s) after each call before sleeping; with several
  // training processes sharing a few cores that spinning steals their CPU. 2^18 cycles (~0.1 ms)
  // matches the engine's own pool and still covers back-to-back sgemm calls.
  process.env.OPENBLAS_THREAD_TIMEOUT ??= '18';
  const file = path.join(dir, 'openblas-env.json');
  if (process.env.OPENBLAS_CORETYPE || !fs.existsSync(file)) return;
  try {
    const env = JSON.parse(fs.readFileSync(file, 'utf8')) as { OPENBLAS_CORETYPE?: unknown };
    if (typeof env.OPENBLAS_CORETYPE === 'string') process.env.OPENBLAS_CORETYPE = env.OPENBLAS_CORETYPE;
  } catch {
    // A corrupt hint file only costs speed; OpenBLAS then uses its own detection.
  }
}

/** Relative to the working directory when inside it, else absolute. */
function displayPath(p: string): string {
  const rel = path.relative(process.cwd(), p);
  return rel && !rel.startsWith('..') && !path.isAbsolute(rel) ? rel : p;
}

function firstLine(err: unknown): string {
  const text = err instanceof Error ? err.message : String(err);
  return text.split('\n')[0];
}
