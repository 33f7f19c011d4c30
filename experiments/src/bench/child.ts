/**
 * Child process of the training bench's peak-RSS measurement: one step of one variant, then its peak
 * resident set size. argv: <variant> <training bench config JSON>. Prints `maxRssKb=<n>`.
 */
import { runMain } from '@rred/core';
import { runOneStep } from './training-bench';

runMain(async () => {
  const [variant, config] = process.argv.slice(2);
  await runOneStep(JSON.parse(config), variant);
  process.stdout.write(`maxRssKb=${process.resourceUsage().maxRSS}\n`);
});
