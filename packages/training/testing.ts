/** @rred/training/testing — test doubles: a bigram policy that trains without a transformer. */
export { BigramPolicy } from './src/testing/bigram-policy';
