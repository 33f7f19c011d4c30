/** The jstat functions this repo uses (jstat ships no types). */
declare module 'jstat' {
  export const jStat: {
    studentt: { inv(p: number, dof: number): number; cdf(x: number, dof: number): number };
    normal: { inv(p: number, mean: number, sd: number): number; cdf(x: number, mean: number, sd: number): number };
    binomial: { cdf(k: number, n: number, p: number): number };
  };
}
