import { mean, sampleStandardDeviation } from '@rred/core';

/** How group-relative advantages are scaled (TRL `scale_rewards`). */
type ScaleRewards = 'group' | 'batch' | 'none';

/**
 * GRPO advantages (DeepSeekMath Eq. in Sec. 4.1.2): A_i = (r_i − mean_group(r)) / (std + 1e-4), with
 * rewards laid out group by group (`groupSize` consecutive completions share a prompt).
 * - 'group': std of the completion's own group;
 * - 'batch': std over the whole batch (Dr. GRPO / TRL's batch scaling, less biased toward easy groups);
 * - 'none': no scaling, only the group mean is subtracted.
 * std is the sample standard deviation (n − 1 in the denominator), as torch's default `std`.
 * Groups whose rewards are all equal get A = 0 for every member (they carry no signal).
 */
export function groupAdvantages(rewards: readonly number[], groupSize: number, scale: ScaleRewards): number[] {
  if (!Number.isInteger(groupSize) || groupSize < 1) throw new RangeError(`groupSize must be an integer ≥ 1, got ${groupSize}`);
  if (rewards.length % groupSize !== 0) throw new RangeError(`${rewards.length} rewards do not split into groups of ${groupSize}`);
  if (rewards.some((r) => !Number.isFinite(r))) throw new RangeError(`rewards must be finite, got [${rewards.join(', ')}]`);
  const out = new Array<number>(rewards.length);
  const batchStd = sampleStd(rewards);
  for (let g = 0; g < rewards.length; g += groupSize) {
    const group = rewards.slice(g, g + groupSize);
    const groupMean = mean(group);
    const std = scale === 'group' ? sampleStd(group) : scale === 'batch' ? batchStd : 1;
    const denom = scale === 'none' ? 1 : std + 1e-4;
    for (let i = 0; i < groupSize; i++) out[g + i] = (group[i] - groupMean) / denom;
  }
  return out;
}

/** Sample SD (n − 1), except that a single reward has no spread: 0 (so its advantage is 0, not NaN). */
export function sampleStd(xs: readonly number[]): number {
  return xs.length < 2 ? 0 : sampleStandardDeviation(xs);
}

/** Fraction of groups whose rewards all coincide (zero std: no learning signal). */
export function zeroStdGroupFraction(rewards: readonly number[], groupSize: number): number {
  let zero = 0;
  const groups = rewards.length / groupSize;
  for (let g = 0; g < rewards.length; g += groupSize) {
    const group = rewards.slice(g, g + groupSize);
    if (group.every((r) => r === group[0])) zero += 1;
  }
  return groups > 0 ? zero / groups : 0;
}
