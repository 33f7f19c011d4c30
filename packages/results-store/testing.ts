/** @rred/results-store/testing — test helpers: temporary store directories, a fixed run context, a sample bundle. */
export { FIXED_CONTEXT, sampleBundle, tempDir } from './src/testing-helpers';
