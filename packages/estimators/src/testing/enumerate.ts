/**
 * Exact quantities of an `EnumerableLM` by enumerating every continuation — the ground truth the
 * estimator tests compare against.
 */
import type { ContinuationReward, SpecialTokens } from '../types';
import type { EnumerableLM } from './enumerable-lm';

/**
 * True value v(s) within horizon M: Σ p(c | s) · ζ(c) over every continuation c that reaches `<eos>`
 * within M tokens (continuations still running at M score 0, as in truncated MC).
 */
export function exactValue(
  model: EnumerableLM,
  prefix: readonly number[],
  M: number,
  reward: ContinuationReward,
  tokens: SpecialTokens,
): number {
  let total = 0;
  const walk = (ctx: number[], cont: number[], logp: number): void => {
    if (cont.length === M) return;
    const lp = model.nextLogProbs(ctx);
    for (let v = 0; v < lp.length; v++) {
      const p = logp + lp[v];
      if (v === tokens.eos) {
        total += Math.exp(p) * reward([...cont, v], true);
      } else {
        walk([...ctx, v], [...cont, v], p);
      }
    }
  };
  walk(prefix.slice(), [], 0);
  return total;
}

/**
 * ζ = 1 iff the continuation stopped, contains `</think>`, and the tokens between its first `</think>`
 * and the final `<eos>` equal one of the accepted answers.
 */
export function exactAnswerReward(accepted: ReadonlyArray<readonly number[]>, tokens: SpecialTokens): ContinuationReward {
  return (cont, stopped) => {
    if (!stopped) return 0;
    const close = cont.indexOf(tokens.endThink);
    if (close < 0 || cont[cont.length - 1] !== tokens.eos) return 0;
    const got = cont.slice(close + 1, cont.length - 1);
    return accepted.some((a) => a.length === got.length && a.every((t, i) => t === got[i])) ? 1 : 0;
  };
}
